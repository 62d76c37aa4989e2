import { z } from 'zod';
import { count, seconds } from './fieldTypes.js';

/** The `sessions` config section. */
export const sessionsSchema = z.strictObject({
  ttl_seconds: seconds().default(3600).describe('Idle time after which a session expires.'),
  max_sessions: count().default(10_000).describe('Sessions open at once.'),
  max_per_principal: count()
    .default(1000)
    .describe(
      "Sessions open at once for one principal; at the cap a new session closes that principal's longest-idle one.",
    ),
  relist_wait_ms: count(0)
    .max(5000)
    .default(1000)
    .describe(
      'Longest a get_info result that unlocked tools waits for the session to re-list, so the host has them on its next turn; 0 = never wait.',
    ),
  relist_grace_ms: count(0)
    .max(1000)
    .default(100)
    .describe(
      'After that re-list is answered, how much longer the get_info result waits while the host applies the new list.',
    ),
  scope: z
    .enum(['session', 'principal'])
    .default('session')
    .describe('Keep unlocks and jobs per session, or per principal across its sessions.'),
});
