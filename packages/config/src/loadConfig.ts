import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { ConfigError, type ConfigIssue } from './configError.js';
import type { SkillgateConfig } from './configSchema.js';
import { parseConfigNoting } from './parseConfig.js';
import type { Deprecation } from './renamedKeys.js';

/** Options of loadConfig; CLI flags go in `overrides`. */
export interface LoadConfigOptions {
  /** Config file; relative to the cwd. Wins over SKILLGATE_CONFIG. */
  readonly file?: string;
  /** Environment to read SKILLGATE_* from (default process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** CLI flags: the strongest source. */
  readonly overrides?: { readonly host?: string; readonly port?: number };
}

/** A loaded config, the absolute path of the file it came from, if any, and the renamed keys it used. */
export interface LoadedConfig {
  readonly config: SkillgateConfig;
  readonly file?: string;
  readonly deprecations: readonly Deprecation[];
}

type Raw = Record<string, unknown>;

const isMapping = (value: unknown): value is Raw =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

async function readYaml(file: string, origin: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    // Every read failure (missing, a directory, no permission) means there is no config to load.
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    const message = `cannot read config file ${file} (${code})`;
    throw new ConfigError('CONFIG_NOT_FOUND', message, { cause: error, issues: [{ path: origin, message }] });
  }
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  const issues: ConfigIssue[] = doc.errors.map((e) => {
    // prettyErrors appends " at line L, column C:" and a code frame; keep the reason, rebuild the place.
    const reason = (e.message.split('\n')[0] ?? e.message).replace(/ at line \d+, column \d+:$/, '');
    const at = e.linePos?.[0];
    return at === undefined
      ? { path: file, message: reason }
      : { path: `${file}:${at.line}:${at.col}`, message: `line ${at.line}, column ${at.col}: ${reason}` };
  });
  let value: unknown;
  if (issues.length === 0) {
    try {
      value = doc.toJS();
    } catch (error) {
      // toJS throws on alias bombs ("Excessive alias count"), which are YAML problems too.
      issues.push({ path: file, message: error instanceof Error ? error.message : String(error) });
    }
  }
  if (issues.length > 0) {
    const summary = issues.map((i) => i.message).join('; ');
    throw new ConfigError('CONFIG_YAML', `invalid YAML in ${file}: ${summary}`, { issues });
  }
  return value;
}

// Sets raw[sectionKey][key], creating the section when absent. A section of the wrong type is left alone
// so that validation still reports it instead of the override silently replacing it.
function override(raw: Raw, sectionKey: string, key: string, value: unknown): void {
  const section = raw[sectionKey];
  if (section === undefined || section === null) raw[sectionKey] = { [key]: value };
  else if (isMapping(section)) section[key] = value;
}

function envPort(text: string): number {
  const trimmed = text.trim();
  const port = /^\d{1,5}$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (Number.isInteger(port) && port <= 65535) return port;
  const message = `must be an integer from 0 to 65535, got "${text}"`;
  throw new ConfigError('CONFIG_INVALID', `SKILLGATE_PORT ${message}`, {
    issues: [{ path: 'SKILLGATE_PORT', message }],
  });
}

/**
 * Loads the config: the file (options.file, else SKILLGATE_CONFIG, else none = defaults relative to the
 * cwd), then SKILLGATE_HOST / SKILLGATE_PORT / SKILLGATE_LOG_LEVEL, then options.overrides; validates once.
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const env = options.env ?? process.env;
  // An empty variable counts as unset, as compose files often declare `SKILLGATE_CONFIG:` with no value.
  const fromEnv = (name: string): string | undefined => (env[name] === '' ? undefined : env[name]);
  const origin = options.file !== undefined ? 'file' : 'SKILLGATE_CONFIG';
  const given = options.file ?? fromEnv('SKILLGATE_CONFIG');
  const file = given === undefined ? undefined : resolve(given);

  const loaded = file === undefined ? undefined : await readYaml(file, origin);
  if (loaded !== undefined && loaded !== null && !isMapping(loaded)) {
    const message = 'the config file must hold a YAML mapping (key: value lines)';
    throw new ConfigError('CONFIG_INVALID', `invalid config in ${file}: ${message}`, {
      issues: [{ path: '(root)', message }],
    });
  }
  const raw: Raw = isMapping(loaded) ? loaded : {};

  // Which source set a key, so a bad override is blamed on the variable or flag, not on the file.
  const sources = new Map<string, string>();
  const apply = (path: string, value: unknown, source: string): void => {
    const [sectionKey = '', key = ''] = path.split('.');
    override(raw, sectionKey, key, value);
    sources.set(path, source);
  };
  const host = fromEnv('SKILLGATE_HOST');
  if (host !== undefined) apply('server.host', host, 'SKILLGATE_HOST');
  const port = fromEnv('SKILLGATE_PORT');
  if (port !== undefined) apply('server.port', envPort(port), 'SKILLGATE_PORT');
  const level = fromEnv('SKILLGATE_LOG_LEVEL');
  if (level !== undefined) apply('logging.level', level, 'SKILLGATE_LOG_LEVEL');
  if (options.overrides?.host !== undefined) apply('server.host', options.overrides.host, '--host');
  if (options.overrides?.port !== undefined) apply('server.port', options.overrides.port, '--port');

  try {
    const parsed = parseConfigNoting(raw, { baseDir: file === undefined ? process.cwd() : dirname(file) });
    return file === undefined ? parsed : { ...parsed, file };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const issues = error.issues.map((issue) => {
      const source = sources.get(issue.path);
      return source === undefined ? issue : { ...issue, message: `${issue.message} (set by ${source})` };
    });
    const summary = issues.map((i) => `${i.path}: ${i.message}`).join('; ');
    const where = file === undefined ? 'invalid config' : `invalid config in ${file}`;
    throw new ConfigError(error.code, `${where}: ${summary}`, { issues, cause: error });
  }
}
