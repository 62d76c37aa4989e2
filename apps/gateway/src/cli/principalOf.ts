import type { Principal } from '../auth/accessPolicy.js';
import { createPrincipalDirectory, type PrincipalDirectoryOptions } from '../auth/principalDirectory.js';
import { UsageError } from './usage.js';

/** The principal `--token NAME` names: a configured token by name, or `anonymous`; everything without. */
export function principalOf(principals: PrincipalDirectoryOptions, name: string | undefined): Principal {
  // Views are cached by skill globs (viewKeyOf): this one shares the view of any principal allowed `*`.
  if (name === undefined) return { id: '*', name: '*', skills: ['*'] };
  const directory = createPrincipalDirectory(principals);
  const principal = directory.byName(name);
  if (principal === undefined) {
    throw new UsageError(`no token named "${name}" in the config (known: ${directory.names.join(', ')})`);
  }
  return principal;
}
