import { createSlotPool, type SlotPool } from '@skillgate/runner';
import type { UpstreamDefinition } from '../types.js';

// Calls waiting for a slot of one upstream; past it a call is refused at once (docs/limits.md).
const MAX_QUEUED_CALLS = 1024;

/**
 * The call slots of one upstream: the runner's slot pool, with a per-principal share so one tenant cannot
 * hold every slot of the upstream; waiting for a slot counts against the call's timeout.
 */
export function upstreamSlots(definition: UpstreamDefinition): SlotPool {
  return createSlotPool({
    maxConcurrent: definition.maxConcurrent,
    maxConcurrentPerPrincipal: Math.min(definition.maxConcurrentPerPrincipal, definition.maxConcurrent),
    maxQueue: MAX_QUEUED_CALLS,
    queueTimeoutMs: definition.timeoutSeconds * 1000,
    wording: {
      runs: `calls to upstream ${definition.id}`,
      maxKey: 'max_concurrent',
      perPrincipalKey: 'max_concurrent_per_principal',
    },
  });
}
