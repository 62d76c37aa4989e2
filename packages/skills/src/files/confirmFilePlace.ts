import type { SkillFile } from '../load/loadTypes.js';
import type { FileOpOptions } from './boundedFileOp.js';
import { closeBounded, openRegularFile } from './openRegularFile.js';

/**
 * Proves that a served file is still a regular file exactly where the catalog found it (see
 * openRegularFile), before something else opens it by that path: the runner starts a script by its
 * absolutePath only after this. Throws SkillsError FILE_CHANGED, FILE_NOT_REGULAR, FILE_UNREADABLE,
 * FILE_TIMEOUT or FILE_BUSY.
 */
export async function confirmFilePlace(file: SkillFile, options: FileOpOptions = {}): Promise<void> {
  const { handle } = await openRegularFile(file.absolutePath, options);
  await closeBounded(file.absolutePath, handle, options);
}
