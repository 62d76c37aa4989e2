import { MIN_NAME_LENGTH } from '@skillgate/skills';
import { z } from 'zod';

/** The `tools` config section. */
export const toolsSchema = z.strictObject({
  max_name_length: z
    .number()
    .int()
    // A shortened name must keep its role, a hash and some of its parts (docs/decisions.md).
    .min(MIN_NAME_LENGTH)
    .max(64)
    .default(48)
    .describe('Longest tool name; a longer name is shortened but keeps skill_, its role and a hash.'),
  max_listed: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(100)
    .describe(
      'Most tools a first tools/list may hold (in universal mode, tools plus skills in load_skill): a principal over it gets search mode instead, in either era, and a 2025-era session never lists more.',
    ),
  list_ttl_ms: z
    .number()
    .int()
    .min(0)
    .max(86_400_000)
    .default(60_000)
    .describe('ttlMs on 2026-07-28 list results: how long a client may cache them.'),
});
