import { z } from 'zod';

/** The `observability` config section (docs/observability.md). */
export const observabilitySchema = z.strictObject({
  metrics_port: z
    .number()
    .int()
    .min(0)
    .max(65535)
    .nullable()
    .default(null)
    .describe(
      'Serve /metrics only on this port (on server.host), not on server.port; unset: /metrics is on the main port. 0 = any free port.',
    ),
});
