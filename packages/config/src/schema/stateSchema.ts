import { z } from 'zod';
import { envName } from './fieldTypes.js';

/** The `state` config section. */
export const stateSchema = z.strictObject({
  backend: z
    .enum(['memory', 'redis'])
    .default('memory')
    .describe(
      'Where sessions, unlocks, async jobs and rate limits live: memory (one process) or redis (shared by replicas).',
    ),
  redis_url_env: envName
    .default('SKILLGATE_REDIS_URL')
    .describe(
      'Environment variable holding the Redis URL (redis://, rediss:// or unix:/path) when backend is redis; anything else, or unset, stops the start.',
    ),
  key_prefix: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{0,64}$/, 'must be at most 64 of A-Z a-z 0-9 . _ : -')
    .default('skillgate:')
    .describe('Prefix of every Redis key and channel, so several gateways can share one Redis.'),
});
