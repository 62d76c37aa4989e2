import matter from 'gray-matter';
import { parse as parseYaml } from 'yaml';
import { deepFreeze } from '../catalog/deepFreeze.js';
import type {
  ParseSkillMdOptions,
  ParseSkillMdResult,
  Problem,
  ProblemCode,
  SkillMdFields,
} from './loadTypes.js';

const KNOWN_FIELDS = ['name', 'description', 'license', 'compatibility', 'metadata', 'allowed-tools'];
const NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_NAME = 64;
/** The specification's limit on `description`, and the ceiling of `maxDescriptionChars`. */
export const MAX_DESCRIPTION_CHARS = 1024;
const MAX_COMPATIBILITY = 500;

function refuseEngine(): never {
  throw new Error('only YAML frontmatter is supported');
}

// An options object disables gray-matter's unbounded cache. YAML 1.2 (`yaml`) yields no Date objects, and
// `---js` frontmatter, which gray-matter would eval, is refused. `resolveKnownTags: false` keeps YAML 1.1's
// `!!binary`, `!!set`, `!!omap` and `!!timestamp` as the plain strings, maps and lists they are written as:
// resolved, they became a Buffer (which cannot be frozen: one such SKILL.md stopped the whole catalog), a Set
// or a Map (published as `{}`) and a Date.
const MATTER_OPTIONS = {
  engines: {
    yaml: (text: string): object => parseYaml(text, { logLevel: 'error', resolveKnownTags: false }),
    javascript: refuseEngine,
    json: refuseEngine,
  },
};

type Draft = Omit<Problem, 'file' | 'skill'>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const charCount = (text: string): number => [...text].length;

const firstLine = (error: unknown): string =>
  ((error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '').replace(/:$/, '');

/** Parses and validates the text of one SKILL.md (docs/skills.md); never throws. */
export function parseSkillMd(text: string, options: ParseSkillMdOptions): ParseSkillMdResult {
  const drafts: Draft[] = [];
  // Strict mode turns every finding into an error; lenient mode keeps what can still be served.
  const soft = options.validation === 'strict' ? 'error' : 'warning';
  const report = (severity: Problem['severity'], code: ProblemCode, reason: string, field?: string) => {
    drafts.push(field === undefined ? { severity, code, reason } : { severity, code, reason, field });
  };
  const finish = (skill: SkillMdFields | undefined, name = options.dirName): ParseSkillMdResult => {
    const refused = skill === undefined || drafts.some((d) => d.severity === 'error');
    const problems = drafts.map((d) => ({ ...d, file: options.file, skill: name }));
    return { skill: refused ? undefined : skill, problems };
  };

  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  if (!/^---(?!-)/.test(source)) {
    report(
      'error',
      'FRONTMATTER_INVALID',
      'no frontmatter: SKILL.md must start with a --- block holding name and description',
    );
    return finish(undefined);
  }
  let parsed: { data: unknown; content: string };
  try {
    parsed = matter(source, MATTER_OPTIONS);
  } catch (error) {
    report('error', 'FRONTMATTER_INVALID', `unparsable frontmatter: ${firstLine(error)}`);
    return finish(undefined);
  }
  const data = parsed.data;
  if (!isRecord(data)) {
    report('error', 'FRONTMATTER_INVALID', 'frontmatter must be a YAML mapping of fields');
    return finish(undefined);
  }

  const name = checkName(data.name, options, soft, report);
  const maxDescription = Math.min(
    options.maxDescriptionChars ?? MAX_DESCRIPTION_CHARS,
    MAX_DESCRIPTION_CHARS,
  );
  const description = checkDescription(data.description, maxDescription, options, soft, report);
  const license = optionalString(data.license, 'license', soft, report);
  const allowedTools = optionalString(data['allowed-tools'], 'allowed-tools', soft, report);
  let compatibility = optionalString(data.compatibility, 'compatibility', soft, report);
  if (compatibility === '') {
    report(soft, 'FIELD_INVALID', 'compatibility must not be empty', 'compatibility');
    compatibility = undefined;
  } else if (compatibility !== undefined && charCount(compatibility) > MAX_COMPATIBILITY) {
    report(
      soft,
      'FIELD_INVALID',
      `compatibility is longer than ${MAX_COMPATIBILITY} characters`,
      'compatibility',
    );
  }
  const metadata = checkMetadata(data.metadata, soft, report);
  for (const key of Object.keys(data)) {
    if (!KNOWN_FIELDS.includes(key)) {
      report(soft, 'FIELD_UNKNOWN', `unknown field (allowed: ${KNOWN_FIELDS.join(', ')})`, key);
    }
  }
  if (description === undefined) return finish(undefined, name);
  const body = parsed.content.replace(/^(?:[ \t]*\r?\n)+/, '').trimEnd();
  return finish(
    {
      name,
      description,
      ...(license === undefined ? {} : { license }),
      ...(compatibility === undefined ? {} : { compatibility }),
      metadata,
      ...(allowedTools === undefined ? {} : { allowedTools }),
      body,
      // Kept as parsed (the Skills extension publishes it verbatim); frozen, since every session shares it.
      frontmatter: deepFreeze(data),
    },
    name,
  );
}

type Report = (severity: Problem['severity'], code: ProblemCode, reason: string, field?: string) => void;

function checkName(
  value: unknown,
  options: ParseSkillMdOptions,
  soft: Problem['severity'],
  report: Report,
): string {
  const fallback = options.validation === 'lenient' ? `; using the directory name "${options.dirName}"` : '';
  if (value === undefined || value === null) {
    report(soft, 'FIELD_MISSING', `name is required${fallback}`, 'name');
    return options.dirName;
  }
  if (typeof value !== 'string' || value === '') {
    report(soft, 'FIELD_INVALID', `name must be a non-empty string${fallback}`, 'name');
    return options.dirName;
  }
  if (value.length > MAX_NAME || !NAME_PATTERN.test(value)) {
    report(
      soft,
      'FIELD_INVALID',
      `name must be 1-${MAX_NAME} chars of a-z, 0-9 and single inner hyphens`,
      'name',
    );
  }
  if (value !== options.dirName) {
    report(
      soft,
      'NAME_MISMATCH',
      `name "${value}" differs from its directory name "${options.dirName}"`,
      'name',
    );
  }
  return value;
}

function checkDescription(
  value: unknown,
  max: number,
  options: ParseSkillMdOptions,
  soft: Problem['severity'],
  report: Report,
): string | undefined {
  if (value === undefined || value === null) {
    report('error', 'FIELD_MISSING', 'description is required: agents choose skills by it', 'description');
    return undefined;
  }
  if (typeof value !== 'string') {
    report('error', 'FIELD_INVALID', 'description must be a string', 'description');
    return undefined;
  }
  const description = value.trim();
  if (description === '') {
    report('error', 'FIELD_INVALID', 'description is empty', 'description');
    return undefined;
  }
  const chars = [...description];
  if (chars.length > max) {
    // Every initialize and tools/list carries descriptions: a long one is never served whole.
    const served = options.validation === 'lenient' ? `; serving its first ${max}` : '';
    report(
      soft,
      'FIELD_INVALID',
      `description is ${chars.length} characters, longer than ${max}${served}`,
      'description',
    );
    return chars.slice(0, max).join('');
  }
  return description;
}

/** A string field, or undefined when absent; a wrong type is reported and the field dropped. */
function optionalString(
  value: unknown,
  field: string,
  soft: Problem['severity'],
  report: Report,
): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  report(soft, 'FIELD_INVALID', `${field} must be a string`, field);
  return undefined;
}

function checkMetadata(value: unknown, soft: Problem['severity'], report: Report): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) {
    report(soft, 'FIELD_INVALID', 'metadata must be a map of string keys to string values', 'metadata');
    return {};
  }
  const entries: Array<[string, string]> = [];
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry === 'string') entries.push([key, entry]);
    else report(soft, 'FIELD_INVALID', 'metadata values must be strings (quote them)', `metadata.${key}`);
  }
  // fromEntries defines own properties, so a `__proto__` key stays data and never becomes a prototype.
  return Object.fromEntries(entries);
}
