import { type Dirent, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './testGateway.js';

const BUILT = join(REPO_ROOT, 'apps/gateway/dist/cli.js');
const SOURCE = join(REPO_ROOT, 'apps/gateway/src/cli.ts');

/** Newest modification time of any source file the built CLI is compiled from. */
function newestSource(): number {
  let newest = 0;
  const roots = [join(REPO_ROOT, 'apps/gateway/src')];
  for (const pkg of readdirSync(join(REPO_ROOT, 'packages')))
    roots.push(join(REPO_ROOT, 'packages', pkg, 'src'));
  for (const root of roots) {
    let entries: Dirent[] = [];
    try {
      entries = readdirSync(root, { withFileTypes: true, recursive: true });
    } catch {
      continue;
    }
    for (const entry of entries)
      if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

let command: readonly string[] | undefined;

/**
 * The argv (after `node`) that runs the real `skillgate` CLI: the built one when it is newer than every
 * source file (`pnpm test` builds first, through turbo), else the sources through tsx. A tsx start compiles
 * the gateway anew in every child process: twice the CPU of the built CLI, and CLI tests start dozens.
 */
export function cliArgs(): readonly string[] {
  if (command === undefined) {
    let built = 0;
    try {
      built = statSync(BUILT).mtimeMs;
    } catch {
      built = 0;
    }
    command =
      built > newestSource() ? [BUILT] : ['--conditions=@skillgate/source', '--import', 'tsx', SOURCE];
  }
  return command;
}
