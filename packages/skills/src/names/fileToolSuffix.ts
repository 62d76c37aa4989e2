import { namePart } from './namePart.js';
import { shortHash } from './shortHash.js';

const CONVENTIONAL_DIR = /^(?:scripts|references|assets)\//;

/**
 * The `sfile` of a skill file (docs/skills.md, "Tool names"): `scripts/build.sh` -> `build_sh`. When nothing usable is left,
 * it is the short hash of the whole path, so two such files of one skill still get distinct names.
 */
export function fileToolSuffix(path: string): string {
  return namePart(path.replace(CONVENTIONAL_DIR, '')) || shortHash(path);
}
