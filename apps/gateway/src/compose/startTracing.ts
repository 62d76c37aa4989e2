import { ConfigError } from '@skillgate/config';
import type { SecretRedactor } from '../observability/redactSecrets.js';
import { createTracing, type Tracing, type TracingOptions } from '../observability/tracing.js';

/** `observability.tracing` with an endpoint, before the header variables are read. */
export interface TracingSettings extends Omit<TracingOptions, 'headers' | 'redact'> {
  /** Collector header -> the variable holding its value (a secret, kept out of logs). */
  readonly headersFromEnv: Readonly<Record<string, string>>;
}

/**
 * The gateway's tracer from `observability.tracing`, or undefined when no endpoint is set (then no part of
 * the gateway does any tracing work). A header whose variable is unset fails the start, naming it.
 */
export function startTracing(
  tracing: TracingSettings | undefined,
  env: Readonly<Record<string, string | undefined>>,
  redact: SecretRedactor,
): Tracing | undefined {
  if (tracing === undefined) return undefined;
  const headers: Record<string, string> = {};
  for (const [header, name] of Object.entries(tracing.headersFromEnv)) {
    const value = env[name];
    if (value === undefined || value === '') {
      const message = `environment variable ${name} is not set (collector header ${header})`;
      throw new ConfigError('CONFIG_INVALID', message, {
        issues: [{ path: `observability.tracing.headers_from_env.${header}`, message }],
      });
    }
    headers[header] = value;
  }
  const { headersFromEnv: _names, ...rest } = tracing;
  return createTracing({ ...rest, headers, redact });
}
