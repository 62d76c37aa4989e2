import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { REPO_ROOT } from './testGateway.js';

const SRC = join(REPO_ROOT, 'apps/gateway/src');

/** One line of the gateway's source, for the tests that keep a rule in one module. */
export interface SourceLine {
  /** The file, relative to apps/gateway/src. */
  readonly path: string;
  /** 1-based. */
  readonly number: number;
  readonly text: string;
}

/** Every line of every .ts file under apps/gateway/src. */
export async function gatewaySourceLines(): Promise<readonly SourceLine[]> {
  const entries = await readdir(SRC, { withFileTypes: true, recursive: true });
  const lines: SourceLine[] = [];
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = join(entry.parentPath, entry.name);
    const path = relative(SRC, file);
    (await readFile(file, 'utf8')).split('\n').forEach((text, index) => {
      lines.push({ path, number: index + 1, text });
    });
  }
  return lines;
}
