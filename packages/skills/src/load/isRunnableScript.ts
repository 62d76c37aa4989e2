import { extname } from 'node:path';
import { closeBounded, closeQuietly, openRegularFile, readFully } from '../files/openRegularFile.js';

// `#!` (a script the kernel hands to its interpreter) or `\x7fELF` (a compiled program).
const SHEBANG = Buffer.from('#!');
const ELF = Buffer.from([0x7f, 0x45, 0x4c, 0x46]);

/** What isRunnableScript needs to know of a file under `scripts/`. */
export interface ScriptCandidate {
  readonly path: string;
  readonly absolutePath: string;
  readonly isExecutable: boolean;
}

/**
 * True when the gateway's runner could start the file (docs/decisions.md, "Catalog and names"): its
 * extension has a configured interpreter, or it is executable and starts with a shebang (or is an ELF
 * program). `extensions` are lowercase with the dot, e.g. `.py`; undefined means every file counts.
 */
export async function isRunnableScript(
  file: ScriptCandidate,
  extensions: ReadonlySet<string> | undefined,
): Promise<boolean> {
  if (extensions === undefined || extensions.has(extname(file.path).toLowerCase())) return true;
  if (!file.isExecutable) return false;
  // Through the bounded reader, like every read of a served file (docs/decisions.md, "Bounded file access").
  const { handle } = await openRegularFile(file.absolutePath);
  const head = Buffer.alloc(ELF.length);
  let bytesRead: number;
  try {
    bytesRead = await readFully(file.absolutePath, handle, head, 0);
  } catch (error) {
    closeQuietly(handle);
    throw error;
  }
  await closeBounded(file.absolutePath, handle);
  const start = head.subarray(0, bytesRead);
  return start.subarray(0, SHEBANG.length).equals(SHEBANG) || start.equals(ELF);
}
