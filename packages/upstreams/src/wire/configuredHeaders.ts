import type { UpstreamDefinition } from '../types.js';
import { UpstreamsError } from '../upstreamsError.js';

/**
 * The headers an HTTP upstream is sent on every request: each `headers_from_env` header with its variable's
 * whole value. Throws UpstreamsError ENV_NOT_SET for a variable that is missing or empty (an empty header
 * value is no credential), before anything is sent.
 */
export function configuredHeaders(
  definition: UpstreamDefinition,
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [header, variable] of Object.entries(definition.headersFromEnv ?? {})) {
    const value = env[variable];
    if (value === undefined || value === '') {
      throw new UpstreamsError(
        'ENV_NOT_SET',
        `environment variable ${variable} is not set (header ${header})`,
      );
    }
    headers[header] = value;
  }
  return headers;
}
