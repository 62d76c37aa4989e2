import type { Skill, SkillFile } from '../load/loadTypes.js';
import type { SkillEntry, SkillResourceEntry } from './extensionTypes.js';
import { skillUri } from './skillUri.js';

/** Per-skill limits of the Skills extension: hosts must accept skills up to these, servers should not exceed them. */
const SKILL_LIMITS = Object.freeze({ files: 512, bytes: 16_777_216 });

const NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** A finding about a skill's extension entry: not publishable at all, or over the extension's limits. */
export interface SkillEntryProblem {
  readonly code: 'SKILL_NOT_PUBLISHED' | 'SKILL_OVER_LIMITS';
  readonly reason: string;
}

/** The entry of one skill, or undefined when its frontmatter breaks the extension's rules, and the findings. */
export interface SkillEntryResult {
  readonly entry?: SkillEntry;
  readonly problems: readonly SkillEntryProblem[];
}

const chars = (text: string): number => [...text].length;

const isStringMap = (value: unknown): boolean =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.values(value).every((item) => typeof item === 'string');

/**
 * Whether a value can be written as JSON: a YAML alias naming a node that holds it (`x: &a { self: *a }`) parses
 * to a circular value, and published verbatim it made every skills/list and skills/get throw while being
 * written (the 2025-era POST was never answered, and the 2026-07-28 one hung in the SDK's path).
 */
function isJsonTree(value: unknown): boolean {
  try {
    JSON.stringify(value);
    return true;
  } catch {
    return false;
  }
}

/** Why a frontmatter cannot be published verbatim under the skill's URI, or undefined when it can. */
function frontmatterIssue(skill: Skill): string | undefined {
  const { name, description, compatibility, metadata } = skill.frontmatter;
  if (typeof name !== 'string' || name.length > 64 || !NAME_PATTERN.test(name)) {
    return 'frontmatter name must be 1-64 lowercase letters, digits and single hyphens';
  }
  if (name !== skill.name) return `frontmatter name "${name}" differs from the served name "${skill.name}"`;
  if (typeof description !== 'string' || description.trim() === '' || chars(description) > 1024) {
    return 'frontmatter description must be a string of 1-1024 characters';
  }
  if (
    compatibility !== undefined &&
    (typeof compatibility !== 'string' || compatibility === '' || chars(compatibility) > 500)
  ) {
    return 'frontmatter compatibility must be a string of 1-500 characters';
  }
  if (metadata !== undefined && !isStringMap(metadata))
    return 'frontmatter metadata must map strings to strings';
  if (!isJsonTree(skill.frontmatter))
    return 'frontmatter is not a tree: a YAML alias names a node that holds it';
  return undefined;
}

const byUri = (a: SkillResourceEntry, b: SkillResourceEntry): number =>
  a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0;

/** The `_meta` key of a skills/list entry naming the source a fetched skill comes from. */
const SOURCE_META_KEY = 'io.skillgate/source';

/** Every file's URI, digest and size, sorted by URI; undefined when the skill was loaded without digests. */
function manifest(skillName: string, files: readonly SkillFile[]): SkillResourceEntry[] | undefined {
  const resources: SkillResourceEntry[] = [];
  for (const { path, digest, size } of files) {
    if (digest === undefined) return undefined;
    resources.push({ uri: skillUri(skillName, path), digest, size });
  }
  return resources.sort(byUri);
}

/**
 * Builds the Skills extension entry of a loaded skill (docs/skills-extension.md): `uri` is
 * `skill://<name>/SKILL.md`, `frontmatter` the SKILL.md frontmatter verbatim, `resources` SKILL.md and every
 * served file, each once, with the digest and size computed at load (no I/O here). A skill whose
 * frontmatter breaks the extension's rules (which lenient validation may serve as tools) gets no entry, since
 * a verbatim copy would be refused by hosts; a skill over SKILL_LIMITS is published with a finding.
 */
export function buildSkillEntry(skill: Skill): SkillEntryResult {
  const issue = frontmatterIssue(skill);
  if (issue !== undefined) {
    return { problems: [{ code: 'SKILL_NOT_PUBLISHED', reason: `not published as an MCP skill: ${issue}` }] };
  }
  const files: readonly SkillFile[] = [skill.skillMd, ...skill.files];
  const resources = manifest(skill.name, files) ?? 'dynamic';
  const problems: SkillEntryProblem[] = [];
  const bytes = files.reduce((sum, file) => sum + file.size, 0);
  if (files.length > SKILL_LIMITS.files || bytes > SKILL_LIMITS.bytes) {
    problems.push({
      code: 'SKILL_OVER_LIMITS',
      reason: `${files.length} files, ${bytes} bytes: over the ${SKILL_LIMITS.files}-file or ${SKILL_LIMITS.bytes}-byte limit hosts must accept, so some hosts may refuse it`,
    });
  }
  const entry: SkillEntry = {
    uri: skillUri(skill.name, 'SKILL.md'),
    frontmatter: skill.frontmatter as SkillEntry['frontmatter'],
    resources,
    ...(skill.origin === undefined
      ? {}
      : { _meta: { [SOURCE_META_KEY]: { id: skill.origin.source, commit: skill.origin.commit } } }),
  };
  return { entry, problems };
}
