import { z } from 'zod';

/** Every log level logging.level and SKILLGATE_LOG_LEVEL accept. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Every `logging.format`. */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;

/** The `logging` config section. */
export const loggingSchema = z.strictObject({
  level: z
    .enum(LOG_LEVELS)
    .default('info')
    .describe('Log level; one line per HTTP request is written at debug, tool-call audit lines at info.'),
  format: z
    .enum(LOG_FORMATS)
    .default('auto')
    .describe(
      'Log format on stdout: pretty (one readable line per record), json (one JSON object per line), or auto: pretty when stdout is a terminal, else json.',
    ),
  log_arguments: z
    .boolean()
    .default(false)
    .describe('Put tool argument values in audit log lines (never those of upstream calls).'),
});
