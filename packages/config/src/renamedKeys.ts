import type { ConfigIssue } from './configError.js';

/**
 * Keys renamed so the config follows one convention (docs/configuration.md, "Conventions"): every duration and
 * size names its unit, and fetching skills has its own `sources` section. A config written with the old name
 * still loads, read as the new one, and the start names the new key once (a deprecation).
 */
export const RENAMED_KEYS: ReadonlyArray<{ readonly from: string; readonly to: string }> = [
  { from: 'scripts.default_timeout', to: 'scripts.default_timeout_seconds' },
  { from: 'scripts.max_timeout', to: 'scripts.max_timeout_seconds' },
  { from: 'skills.sources', to: 'sources.list' },
  { from: 'skills.lock_file', to: 'sources.lock_file' },
  { from: 'skills.cache_dir', to: 'sources.cache_dir' },
  { from: 'skills.fetch_timeout_seconds', to: 'sources.fetch_timeout_seconds' },
  { from: 'skills.max_source_bytes', to: 'sources.max_bytes' },
  { from: 'skills.max_source_files', to: 'sources.max_files' },
  { from: 'skills.follow', to: 'sources.follow' },
];

/** An old key a config used: read as `replacement`. */
export interface Deprecation {
  readonly key: string;
  readonly replacement: string;
}

/** A config with its renamed keys moved to their new names, what was moved, and what could not be. */
export interface RenamedKeysResult {
  readonly input: Record<string, unknown>;
  readonly deprecations: readonly Deprecation[];
  readonly issues: readonly ConfigIssue[];
}

type Mapping = Record<string, unknown>;
const isMapping = (value: unknown): value is Mapping =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Moves every old key of RENAMED_KEYS to its new name (copying the sections it touches; the input is not
 * changed). Both names set is an issue: which one was meant cannot be known. A section of the wrong type is
 * left as it is, for validation to report.
 */
export function applyRenamedKeys(input: Mapping): RenamedKeysResult {
  const output: Mapping = { ...input };
  const deprecations: Deprecation[] = [];
  const issues: ConfigIssue[] = [];
  for (const { from, to } of RENAMED_KEYS) {
    const [fromSection = '', fromKey = ''] = from.split('.');
    const [toSection = '', toKey = ''] = to.split('.');
    const source = output[fromSection];
    if (!isMapping(source) || !(fromKey in source)) continue;
    const target = output[toSection] ?? {};
    if (!isMapping(target)) continue;
    const { [fromKey]: value, ...rest } = source;
    if (toKey in target) {
      issues.push({ path: from, message: `renamed to ${to}, which is also set: keep only ${to}` });
      output[fromSection] = rest;
      continue;
    }
    output[fromSection] = rest;
    output[toSection] = { ...(toSection === fromSection ? rest : target), [toKey]: value };
    deprecations.push({ key: from, replacement: to });
  }
  return { input: output, deprecations, issues };
}
