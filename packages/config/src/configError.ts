/** Stable codes of configuration failures. */
export type ConfigErrorCode = 'CONFIG_NOT_FOUND' | 'CONFIG_YAML' | 'CONFIG_INVALID';

/** One problem in a config, located by its dotted key path. */
export interface ConfigIssue {
  readonly path: string;
  readonly message: string;
}

/** The one error class of the config package; every problem is in `issues`. */
export class ConfigError extends Error {
  readonly code: ConfigErrorCode;
  readonly issues: readonly ConfigIssue[];

  constructor(
    code: ConfigErrorCode,
    message: string,
    options: { issues?: readonly ConfigIssue[]; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ConfigError';
    this.code = code;
    this.issues = options.issues ?? [];
  }
}
