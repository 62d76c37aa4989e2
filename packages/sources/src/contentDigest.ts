import { type Skill, sha256Digest } from '@skillgate/skills';

/** The content digests of a source: one over every skill, and one per skill. */
export interface ContentDigests {
  readonly digest: string;
  readonly skills: Readonly<Record<string, string>>;
}

const hexOf = (digest: string | undefined): string => (digest ?? '').replace(/^sha256:/, '');

/** `sha256:` of the sorted lines `path NUL hex LF`, compared as bytes (docs/sources.md, "Digest"). */
function digestOfLines(lines: string[]): string {
  const sorted = lines.map((line) => Buffer.from(line, 'utf8')).sort(Buffer.compare);
  return sha256Digest(Buffer.concat(sorted));
}

/**
 * The content digests over the served files of a source's skills, from the per-file sha256 the Skills
 * extension serves: per skill with `path` = the file's path in its skill, over the source with
 * `<skill>/<path>`.
 */
export function contentDigest(skills: readonly Skill[]): ContentDigests {
  const all: string[] = [];
  const perSkill: Record<string, string> = {};
  for (const skill of skills) {
    const lines = [skill.skillMd, ...skill.files].map((f) => `${f.path}\0${hexOf(f.digest)}\n`);
    perSkill[skill.name] = digestOfLines(lines);
    all.push(...lines.map((line) => `${skill.name}/${line}`));
  }
  return { digest: digestOfLines(all), skills: perSkill };
}
