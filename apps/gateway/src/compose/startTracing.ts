import { ConfigError, type SkillgateConfig } from '@skillgate/config';
import { createTracing, type Tracing } from '../observability/tracing.js';

/** The environment variables holding collector headers (their values are secrets, kept out of logs). */
export function tracingSecretEnvNames(config: SkillgateConfig): string[] {
  return Object.values(config.observability.tracing.headers_from_env);
}

/**
 * The gateway's tracer from `observability.tracing`, or undefined when no endpoint is set (then no part of
 * the gateway does any tracing work). A header whose variable is unset fails the start, naming it.
 */
export function startTracing(
  config: SkillgateConfig,
  env: Readonly<Record<string, string | undefined>>,
): Tracing | undefined {
  const tracing = config.observability.tracing;
  if (tracing.endpoint === undefined) return undefined;
  const headers: Record<string, string> = {};
  for (const [header, name] of Object.entries(tracing.headers_from_env)) {
    const value = env[name];
    if (value === undefined || value === '') {
      const message = `environment variable ${name} is not set (collector header ${header})`;
      throw new ConfigError('CONFIG_INVALID', message, {
        issues: [{ path: `observability.tracing.headers_from_env.${header}`, message }],
      });
    }
    headers[header] = value;
  }
  return createTracing({
    endpoint: tracing.endpoint,
    protocol: tracing.protocol,
    headers,
    sampleRatio: tracing.sample_ratio,
    serviceName: tracing.service_name,
  });
}
