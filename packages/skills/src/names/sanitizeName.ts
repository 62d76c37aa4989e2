import { namePart } from './namePart.js';
import { shortHash } from './shortHash.js';

/**
 * The `sname` of a skill (docs/skills.md, "Tool names"). A name with no usable character at all (e.g. only non-Latin letters)
 * becomes the short hash of the raw name, so that its tools still exist and differ from other such names.
 */
export function sanitizeName(raw: string): string {
  return namePart(raw) || shortHash(raw);
}
