import type { SkillgateConfig } from '@skillgate/config';
import { createPrincipalDirectory } from '../auth/principalDirectory.js';
import type { OperatorSources } from '../operator/collectOperatorView.js';
import { createOperatorAccess } from '../operator/operatorAccess.js';
import type { OperatorPageOptions } from '../operator/operatorPage.js';
import { redactedConfig } from '../operator/redactedConfig.js';

/** What the composition root has built that the operator page reads (docs/operator.md). */
export interface OperatorPageParts {
  /** The page's data sources, less what the config says (built here). */
  readonly sources: Omit<
    OperatorSources,
    'principals' | 'sessionDisclosure' | 'modernDisclosure' | 'effectiveConfig' | 'secrets'
  >;
  /** Environment variables whose values are secrets (tokens, OAuth client credentials). */
  readonly secretEnvNames: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * The operator page's options from the config, or undefined when the MCP endpoint itself is served at `/`
 * (it owns `GET /` then).
 */
export function operatorPageOptions(
  config: SkillgateConfig,
  parts: OperatorPageParts,
): OperatorPageOptions | undefined {
  if (config.server.path === '/') return undefined;
  // Every value the page must never show: tokens, OAuth client credentials, upstream headers and env values.
  const secrets = [
    ...parts.secretEnvNames,
    ...config.upstreams.flatMap((u) => [
      ...Object.values(u.headers_from_env ?? {}),
      ...Object.values(u.env_from ?? {}),
    ]),
  ].flatMap((name) => parts.env[name] ?? []);
  return {
    access: createOperatorAccess({
      adminTokens: config.auth.tokens.filter((t) => t.admin).map((t) => t.name),
      anonymousOpen: config.auth.tokens.length === 0 && config.auth.oauth === undefined,
    }),
    sources: {
      ...parts.sources,
      principals: createPrincipalDirectory({
        tokens: config.auth.tokens,
        anonymousSkills: config.auth.anonymous_skills,
      }),
      sessionDisclosure: config.skills.disclosure,
      modernDisclosure: config.skills.modern_disclosure,
      effectiveConfig: redactedConfig(config, secrets),
      secrets,
    },
  };
}
