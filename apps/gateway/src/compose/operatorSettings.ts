import type { SkillgateConfig } from '@skillgate/config';
import type { Disclosure } from '@skillgate/skills';
import type { PrincipalDirectoryOptions } from '../auth/principalDirectory.js';
import type { OperatorAccessOptions } from '../operator/operatorAccess.js';

/** What the operator page needs of the config (docs/operator.md). */
export interface OperatorSettings {
  /** Tokens with `admin: true`: who may open the page. */
  readonly adminTokens: readonly string[];
  /** No tokens and no OAuth: the page is open to anyone who reaches it (loopback only, by the bind check). */
  readonly anonymousOpen: boolean;
  /** The principals an operator can preview as. */
  readonly principals: PrincipalDirectoryOptions;
  readonly sessionDisclosure: Disclosure;
  readonly modernDisclosure: Disclosure;
}

/**
 * Who counts as an admin: whoever may open the operator page and read /readyz's details (docs/operator.md,
 * "Access"; docs/decisions.md).
 */
export function adminAccessOf(auth: {
  readonly tokens: readonly { readonly name: string; readonly admin: boolean }[];
  readonly oauth?: unknown;
}): OperatorAccessOptions {
  return {
    adminTokens: auth.tokens.filter((t) => t.admin).map((t) => t.name),
    anonymousOpen: auth.tokens.length === 0 && auth.oauth === undefined,
  };
}

/**
 * The operator page's settings, or undefined when the MCP endpoint itself is served at `/` (it owns `GET /`
 * then).
 */
export function operatorSettings(config: SkillgateConfig): OperatorSettings | undefined {
  if (config.server.path === '/') return undefined;
  const { auth, skills } = config;
  return {
    ...adminAccessOf(auth),
    principals: { tokens: auth.tokens, anonymousSkills: auth.anonymous_skills },
    sessionDisclosure: skills.disclosure,
    modernDisclosure: skills.modern_disclosure,
  };
}
