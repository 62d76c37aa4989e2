import { shortHash } from './shortHash.js';

/**
 * The MCP prompt name of a skill (docs/skills-extension.md): its `sname` (the tool-name prefix, already
 * unique in the catalog and made of `[a-z0-9_-]`), within `maxLength`, the tool-name budget, since hosts
 * prefix prompt names as they prefix tool names. A longer one is cut and ends in `_` plus a hash of the
 * skill name; `attempt` > 1 (after a clash) always takes that form, with another hash.
 */
export function promptName(sname: string, skillName: string, maxLength: number, attempt = 1): string {
  if (attempt === 1 && sname.length <= maxLength) return sname;
  const hash = shortHash(attempt === 1 ? skillName : `${skillName}\0prompt${attempt}`);
  return `${sname.slice(0, maxLength - hash.length - 1).replace(/[_-]+$/, '')}_${hash}`;
}
