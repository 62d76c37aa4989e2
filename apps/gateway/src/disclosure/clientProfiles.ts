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

/** One `clients` profile: which clients (name and principal globs) get which disclosure mode. */
export interface ClientProfile {
  readonly match: { readonly name?: string; readonly principal?: string };
  readonly disclosure: Disclosure;
}

/** Options of createDisclosurePicker. */
export interface DisclosurePickerOptions {
  /** Tried in order; the first match wins. */
  readonly profiles: readonly ClientProfile[];
  /** The mode of a client no profile matches (`skills.disclosure`). */
  readonly fallback: Disclosure;
}

/** Compiles the `clients` profiles once (globs, case-insensitive on the client name). */
export function createDisclosurePicker(options: DisclosurePickerOptions): DisclosurePicker {
  const profiles = options.profiles.map((profile) => {
    const name =
      profile.match.name === undefined
        ? undefined
        : picomatch(profile.match.name, { nocase: true, dot: true });
    const principal =
      profile.match.principal === undefined ? undefined : picomatch(profile.match.principal, { dot: true });
    return { name, principal, disclosure: profile.disclosure };
  });
  const { fallback } = options;
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
