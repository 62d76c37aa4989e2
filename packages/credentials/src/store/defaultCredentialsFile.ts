import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/**
 * The file store's default path: $XDG_STATE_HOME/skillgate/credentials.json, else
 * ~/.local/state/skillgate/credentials.json (XDG Base Directory: a relative XDG_STATE_HOME is ignored).
 */
export function defaultCredentialsFile(env: Readonly<Record<string, string | undefined>>): string {
  const state = env.XDG_STATE_HOME;
  const base =
    state !== undefined && isAbsolute(state) ? state : join(env.HOME ?? homedir(), '.local', 'state');
  return join(base, 'skillgate', 'credentials.json');
}
