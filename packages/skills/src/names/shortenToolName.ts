import type { ToolNameParts } from './toolNameParts.js';

const PREFIX = 'skill_';
const HASH_LENGTH = 6;
const GET_INFO_SUFFIX = '_get_info';
const SEPARATOR = /[_-]/;

/**
 * The first `length` chars of `part`, cut back to the last `_`/`-` when that keeps at least half of them,
 * so that a cut skill name ends on a whole word where it can.
 */
function head(part: string, length: number): string {
  if (part.length <= length) return part;
  let cut = part.slice(0, length);
  if (!SEPARATOR.test(part.charAt(length))) {
    const last = Math.max(cut.lastIndexOf('_'), cut.lastIndexOf('-'));
    if (last >= Math.ceil(length / 2)) cut = cut.slice(0, last);
  }
  return cut.replace(/[_-]+$/, '');
}

/**
 * The last `length` chars of `part`, cut forward to the next `_`/`-` when that keeps at least half of them.
 * A file keeps its end: the file name and extension tell siblings of one folder apart, the folder does not.
 */
function tail(part: string, length: number): string {
  if (part.length <= length) return part;
  let cut = part.slice(part.length - length);
  if (!SEPARATOR.test(part.charAt(part.length - length - 1))) {
    const match = /[_-]/.exec(cut);
    if (match !== null && cut.length - match.index - 1 >= Math.ceil(length / 2)) {
      cut = cut.slice(match.index + 1);
    }
  }
  return cut.replace(/^[_-]+/, '');
}

/**
 * A name of at most `maxLength` chars that keeps what the tool is (docs/decisions.md, "Catalog and names"):
 * `skill_{sname'}_{hash}_get_info`, or `skill_{sname'}_{role}_{sfile'}_{hash}`, where only the skill and file
 * parts are shortened. The caller guarantees `maxLength >= MIN_NAME_LENGTH`, so both parts keep some chars.
 */
export function shortenToolName(parts: ToolNameParts, hash: string, maxLength: number): string {
  const { sname, role } = parts;
  if (role === 'get_info') {
    const room = maxLength - PREFIX.length - 1 - HASH_LENGTH - GET_INFO_SUFFIX.length;
    return `${PREFIX}${head(sname, room)}_${hash}${GET_INFO_SUFFIX}`;
  }
  const sfile = parts.sfile ?? '';
  const marker = `_${role}_`;
  const room = maxLength - PREFIX.length - marker.length - 1 - HASH_LENGTH;
  let skillRoom: number;
  if (sname.length + sfile.length <= room) skillRoom = sname.length;
  else if (sname.length <= Math.ceil(room / 2)) skillRoom = sname.length;
  else if (sfile.length <= Math.floor(room / 2)) skillRoom = room - sfile.length;
  else skillRoom = Math.ceil(room / 2);
  const file = tail(sfile, room - skillRoom);
  // Whatever cutting the file on a word boundary saved goes to the skill part.
  return `${PREFIX}${head(sname, room - file.length)}${marker}${file}_${hash}`;
}
