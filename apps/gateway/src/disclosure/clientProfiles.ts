import type { SkillgateConfig } from '@skillgate/config';
import type { Disclosure } from '@skillgate/skills';
import picomatch from 'picomatch';

/** Picks a 2025-era session's disclosure mode from the client name and principal (first matching profile wins). */
export type DisclosurePicker = (clientName: string, principal: string) => Disclosure;

/** Compiles the `clients` profiles once (globs, case-insensitive on the client name). */
export function createDisclosurePicker(config: SkillgateConfig): DisclosurePicker {
  const profiles = config.clients.map((profile) => {
    const name =
      profile.match.name === undefined
        ? undefined
        : picomatch(profile.match.name, { nocase: true, dot: true });
    const principal =
      profile.match.principal === undefined ? undefined : picomatch(profile.match.principal, { dot: true });
    return { name, principal, disclosure: profile.disclosure };
  });
  const fallback: Disclosure = config.skills.disclosure;
  return (clientName, principalName) => {
    for (const p of profiles) {
      if (
        (p.name === undefined || p.name(clientName)) &&
        (p.principal === undefined || p.principal(principalName))
      ) {
        return p.disclosure;
      }
    }
    return fallback;
  };
}
