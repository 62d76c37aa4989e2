import { stat } from 'node:fs/promises';

/** A configured skill root that cannot serve skills. */
export interface MissingRoot {
  /** Its position in `skills.roots`. */
  readonly index: number;
  /** The resolved path. */
  readonly root: string;
  readonly reason: string;
}

/**
 * The roots that do not exist or are not folders. Relative roots resolve against the config file's folder,
 * so a copied config points at nothing: start-up refuses that instead of serving 0 skills while /readyz
 * says ready (unless `skills.allow_missing_roots`, docs/configuration.md).
 */
export async function missingSkillRoots(roots: readonly string[]): Promise<MissingRoot[]> {
  const checked = await Promise.all(
    roots.map(async (root, index): Promise<MissingRoot | undefined> => {
      try {
        const info = await stat(root);
        return info.isDirectory() ? undefined : { index, root, reason: 'is not a folder' };
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
        return { index, root, reason: code === 'ENOENT' ? 'does not exist' : `cannot be read (${code})` };
      }
    }),
  );
  return checked.filter((m): m is MissingRoot => m !== undefined);
}
