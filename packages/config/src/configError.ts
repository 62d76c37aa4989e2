/** Stable codes of configuration failures; callers branch on these, never on the message. */
export type ConfigErrorCode = 'CONFIG_NOT_FOUND' | 'CONFIG_YAML' | 'CONFIG_INVALID';

/** One problem in a config, located by its dotted key path (or the env variable / file it came from). */
export interface ConfigIssue {
  readonly path: string;
  readonly message: string;
}

/** Options of the ConfigError constructor. */
export interface ConfigErrorOptions {
  readonly issues?: readonly ConfigIssue[];
  readonly cause?: unknown;
}

/** The one error class of the config package; every problem found is in `issues`, all at once. */
export class ConfigError extends Error {
  readonly code: ConfigErrorCode;
  readonly issues: readonly ConfigIssue[];

  constructor(code: ConfigErrorCode, message: string, options: ConfigErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ConfigError';
    this.code = code;
    this.issues = Object.freeze((options.issues ?? []).map((issue) => Object.freeze({ ...issue })));
  }
}
