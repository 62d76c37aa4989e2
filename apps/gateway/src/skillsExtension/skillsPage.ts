import type { Skill } from '@modelcontextprotocol/server/ext/skills';
import { SDK_ERRORS } from '../errors/sdkErrors.js';

/** Entries per skills/list page (the SDK's own default). */
const SKILLS_PAGE_SIZE = 100;

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
    throw SDK_ERRORS.invalidCursor();
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
 * Where the page `cursor` asks for starts (0 without one) when that is a page boundary, as every cursor we
 * mint is while the catalog stays the same; undefined for an invalid cursor or one that starts mid-page
 * (the SDK's path answers those). Page boundaries bound the pages worth rendering once.
 */
export function pageStartOf(
  entries: readonly Skill[],
  cursor: string | undefined,
  size = SKILLS_PAGE_SIZE,
): number | undefined {
  if (cursor === undefined) return 0;
  let start: number;
  try {
    start = firstAfter(entries, uriOfCursor(cursor));
  } catch {
    return undefined;
  }
  return start % size === 0 ? start : undefined;
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
