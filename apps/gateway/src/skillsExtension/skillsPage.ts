import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Skill } from '@modelcontextprotocol/server/ext/skills';

/** Entries per skills/list page (the SDK's own default). */
export const SKILLS_PAGE_SIZE = 100;

/** One page of skills/list. */
export interface SkillsPage {
  readonly skills: readonly Skill[];
  readonly nextCursor?: string;
}

const PREFIX = 'after:';

/** The cursor that resumes after an entry: its URI, so a reload between pages neither repeats nor skips one. */
const cursorAfter = (uri: string): string => Buffer.from(`${PREFIX}${uri}`).toString('base64url');

function uriOfCursor(cursor: string): string {
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  // Anything we did not mint (or minted by another build) is an invalid cursor, not a silent first page.
  if (!decoded.startsWith(PREFIX) || cursorAfter(decoded.slice(PREFIX.length)) !== cursor) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor');
  }
  return decoded.slice(PREFIX.length);
}

/** Index of the first entry whose URI sorts after `uri` (entries are sorted by URI). */
function firstAfter(entries: readonly Skill[], uri: string): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((entries[mid]?.uri ?? '') <= uri) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * A page of entries sorted by URI, resumed after the URI in `cursor` (keyset paging): entries stay whole,
 * and a cursor stays valid across reloads. An unknown cursor is -32602 (Invalid params).
 */
export function skillsPage(
  entries: readonly Skill[],
  cursor: string | undefined,
  size = SKILLS_PAGE_SIZE,
): SkillsPage {
  const start = cursor === undefined ? 0 : firstAfter(entries, uriOfCursor(cursor));
  const skills = entries.slice(start, start + size);
  const last = skills[skills.length - 1];
  return start + size < entries.length && last !== undefined
    ? { skills, nextCursor: cursorAfter(last.uri) }
    : { skills };
}
