import { z } from 'zod';
import { count, seconds } from './fieldTypes.js';

/** The `jobs` config section. */
export const jobsSchema = z.strictObject({
  ttl_seconds: seconds().default(3600).describe('How long a finished async job is kept.'),
  max_per_session: count().default(16).describe('Running async jobs per session (or principal).'),
});
