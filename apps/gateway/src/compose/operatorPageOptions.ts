import { createPrincipalDirectory } from '../auth/principalDirectory.js';
import type { SecretRedactor } from '../observability/redactSecrets.js';
import type { OperatorSources } from '../operator/collectOperatorView.js';
import { createOperatorAccess } from '../operator/operatorAccess.js';
import type { OperatorPageOptions } from '../operator/operatorPage.js';
import { redactedConfig } from '../operator/redactedConfig.js';
import type { OperatorSettings } from './operatorSettings.js';

/** Options of operatorPageOptions: what the composition root has built that the page reads (docs/operator.md). */
export interface OperatorPageBuildOptions {
  /** The page's settings; undefined when the MCP endpoint is served at `/` (no page then). */
  readonly settings: OperatorSettings | undefined;
  /** The page's data sources, less what the settings say (built here). */
  readonly sources: Omit<
    OperatorSources,
    'principals' | 'sessionDisclosure' | 'modernDisclosure' | 'effectiveConfig' | 'redact'
  >;
  /**
   * The whole validated config, shown redacted as the page's "effective config": the one reader of the config
   * outside the settings, since showing all of it is the point.
   */
  readonly config: unknown;
  /** The gateway's redactor: the page never shows a configured secret (tokens, upstream credentials). */
  readonly redact: SecretRedactor;
}

/** The operator page's options, or undefined when the MCP endpoint itself is served at `/`. */
export function operatorPageOptions(options: OperatorPageBuildOptions): OperatorPageOptions | undefined {
  const { settings, redact } = options;
  if (settings === undefined) return undefined;
  return {
    access: createOperatorAccess({
      adminTokens: settings.adminTokens,
      anonymousOpen: settings.anonymousOpen,
    }),
    sources: {
      ...options.sources,
      principals: createPrincipalDirectory(settings.principals),
      sessionDisclosure: settings.sessionDisclosure,
      modernDisclosure: settings.modernDisclosure,
      effectiveConfig: redactedConfig(options.config, redact),
      redact,
    },
  };
}
