import { ANONYMOUS_NAME, anonymousPrincipal, type Principal, tokenPrincipal } from './accessPolicy.js';

/** Options of createPrincipalDirectory: the configured static tokens (names and globs, never values). */
export interface PrincipalDirectoryOptions {
  readonly tokens: readonly { readonly name: string; readonly skills: readonly string[] }[];
  readonly anonymousSkills: readonly string[];
}

/** The principals an operator can name: `anonymous` and every configured token, by name. */
export interface PrincipalDirectory {
  /** `anonymous` first, then the token names in config order. */
  readonly names: readonly string[];
  /** The principal a name stands for, as the gateway would authenticate it; undefined for an unknown name. */
  byName(name: string): Principal | undefined;
}

/**
 * Builds the directory `skillgate tools|skills --token NAME` and the operator page's "what does X see" both
 * resolve names with, so the two show the same principal.
 */
export function createPrincipalDirectory(options: PrincipalDirectoryOptions): PrincipalDirectory {
  const byName = new Map<string, Principal>([[ANONYMOUS_NAME, anonymousPrincipal(options.anonymousSkills)]]);
  for (const token of options.tokens) byName.set(token.name, tokenPrincipal(token.name, token.skills));
  return {
    names: [...byName.keys()],
    byName: (name) => byName.get(name),
  };
}
