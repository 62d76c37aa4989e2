import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The first executable regular file called `name` in the PATH-style list `path`, or undefined. */
export function findExecutable(name: string, path: string): string | undefined {
  for (const dir of path.split(delimiter)) {
    // An empty entry means the current directory, which is never where an interpreter should come from.
    if (dir === '' || !dir.startsWith('/')) continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/** Whether `file` is a regular file this process may execute. */
export function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
