import { z } from 'zod';
import { count } from './fieldTypes.js';

/** The `rate_limit` config section. */
export const rateLimitSchema = z.strictObject({
  requests_per_second: z
    .number()
    .min(0)
    .default(50)
    .describe(
      'Per-principal sustained request rate on the MCP endpoint: a token bucket refilled at this rate, shared by every replica; a client at this rate is never refused. A search_skills call costs one request more per 16 distinct query terms (docs/limits.md). 0 = off.',
    ),
  burst: count()
    .default(200)
    .describe('Requests a principal may send at once beyond the rate: the size of its token bucket.'),
  bytes_per_request: count()
    .default(65_536)
    .describe(
      "Body bytes one request's worth of the rate limit covers: a request costs 1 + floor(Content-Length / this) from its principal's bucket, so a flood of large bodies spends the budget it costs.",
    ),
});
