import { z } from 'zod';
import type { StateEvent } from './types.js';

const params = z.record(z.string(), z.unknown()).optional();

/** Validates a StateEvent arriving from another replica. */
export const stateEventSchema: z.ZodType<StateEvent> = z.union([
  z.object({
    kind: z.enum(['tools_list_changed', 'prompts_list_changed', 'resources_list_changed']),
    params,
  }),
  z.object({ kind: z.literal('resource_updated'), uri: z.string(), params }),
  z.object({
    kind: z.literal('session_notify'),
    sessionId: z.string().min(1),
    message: z.object({ method: z.string().min(1), params }),
  }),
  z.object({
    kind: z.literal('scope_notify'),
    scopeKey: z.string().min(1),
    exceptSessionId: z.string().min(1).optional(),
    message: z.object({ method: z.string().min(1), params }),
  }),
]);
