import type { SkillgateConfig } from '@skillgate/config';
import type { Disclosure } from '@skillgate/skills';
import picomatch from 'picomatch';

/** Picks a 2025-era session's disclosure mode from the client name and principal (first matching profile wins). */
export type DisclosurePicker = (clientName: string, principal: string) => Disclosure;

/** mcp-remote 0.1.x decorates the host's name: `Claude Desktop (via mcp-remote 0.1.29)`. */
const VIA_MCP_REMOTE = /^(.+) \(via mcp-remote[^)]*\)$/;

/**
 * The names a client is matched by: what it sent, and the host's own name when mcp-remote decorated it, so
 * a profile written for a host also catches it behind mcp-remote (which forwards list_changed as it is).
 */
function clientNames(sent: string): readonly string[] {
  const host = VIA_MCP_REMOTE.exec(sent)?.[1];
  return host === undefined ? [sent] : [sent, host];
}

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
    const names = clientNames(clientName);
    for (const p of profiles) {
      const { name } = p;
      if (
        (name === undefined || names.some((n) => name(n))) &&
        (p.principal === undefined || p.principal(principalName))
      ) {
        return p.disclosure;
      }
    }
    return fallback;
  };
}
