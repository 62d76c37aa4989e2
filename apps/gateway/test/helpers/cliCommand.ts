import { execFile } from 'node:child_process';
import { type Dirent, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
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

/** What one CLI run printed, and its exit code. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the real CLI in a child process (no SKILLGATE_CONFIG); resolves with its exit code and output. */
export async function runCli(...args: string[]): Promise<CliRun> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [...cliArgs(), ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, SKILLGATE_CONFIG: '' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
