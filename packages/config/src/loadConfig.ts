import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { ConfigError } from './configError.js';
import type { SkillgateConfig } from './configSchema.js';
import { parseConfig } from './parseConfig.js';

/** Options of loadConfig; CLI flags go in `overrides`. */
export interface LoadConfigOptions {
  readonly file?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly overrides?: { readonly host?: string; readonly port?: number };
}

/** A loaded config and the file it came from, if any. */
export interface LoadedConfig {
  readonly config: SkillgateConfig;
  readonly file?: string;
}

type Raw = Record<string, unknown>;
const section = (raw: Raw, key: string): Raw => {
  const value = raw[key];
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Raw;
  const fresh: Raw = {};
  raw[key] = fresh;
  return fresh;
};

async function readYaml(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(
      code === 'ENOENT' ? 'CONFIG_NOT_FOUND' : 'CONFIG_INVALID',
      `cannot read config file ${file} (${code})`,
      {
        cause: error,
        issues: [{ path: '(file)', message: `cannot read ${file}` }],
      },
    );
  }
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const issues = doc.errors.map((e) => ({
      path: e.linePos === undefined ? '(yaml)' : `line ${e.linePos[0].line}, column ${e.linePos[0].col}`,
      message: e.message.split('\n')[0] ?? e.message,
    }));
    throw new ConfigError(
      'CONFIG_YAML',
      `invalid YAML in ${file}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
      {
        issues,
      },
    );
  }
  return doc.toJS();
}

/**
 * Loads the config: file (options.file, else SKILLGATE_CONFIG, else none = defaults relative to the cwd),
 * then SKILLGATE_HOST / SKILLGATE_PORT / SKILLGATE_LOG_LEVEL, then CLI overrides; validates once.
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const env = options.env ?? process.env;
  const fileOption = options.file ?? (env.SKILLGATE_CONFIG || undefined);
  const file = fileOption === undefined ? undefined : resolve(fileOption);
  const loaded = file === undefined ? {} : await readYaml(file);
  if (loaded !== null && loaded !== undefined && (typeof loaded !== 'object' || Array.isArray(loaded))) {
    throw new ConfigError('CONFIG_INVALID', 'the config file must hold a YAML mapping', {
      issues: [{ path: '(root)', message: 'expected a mapping' }],
    });
  }
  const raw: Raw = structuredClone((loaded ?? {}) as Raw);
  if (env.SKILLGATE_HOST) section(raw, 'server').host = env.SKILLGATE_HOST;
  if (env.SKILLGATE_PORT) {
    const port = Number(env.SKILLGATE_PORT);
    if (!Number.isInteger(port)) {
      throw new ConfigError(
        'CONFIG_INVALID',
        `SKILLGATE_PORT must be an integer, got "${env.SKILLGATE_PORT}"`,
        {
          issues: [{ path: 'SKILLGATE_PORT', message: 'must be an integer' }],
        },
      );
    }
    section(raw, 'server').port = port;
  }
  if (env.SKILLGATE_LOG_LEVEL) section(raw, 'logging').level = env.SKILLGATE_LOG_LEVEL;
  if (options.overrides?.host !== undefined) section(raw, 'server').host = options.overrides.host;
  if (options.overrides?.port !== undefined) section(raw, 'server').port = options.overrides.port;
  const config = parseConfig(raw, { baseDir: file === undefined ? process.cwd() : dirname(file) });
  return file === undefined ? { config } : { config, file };
}
