import { ConfigError } from '@skillgate/config';
import { CredentialsError } from '@skillgate/credentials';
import { SourcesError } from '@skillgate/sources';
import { USAGE, UsageError } from './usage.js';

/** A failed listen() of the server socket (node:net puts the address it tried on the error). */
interface ListenError {
  readonly code: string;
  readonly address: string;
  readonly port: number;
}

const isListenError = (error: unknown): error is ListenError =>
  error instanceof Error &&
  (error as { syscall?: unknown }).syscall === 'listen' &&
  typeof (error as { code?: unknown }).code === 'string';

const LISTEN_REASONS: Readonly<Record<string, string>> = {
  EADDRINUSE:
    'the port is in use (another skillgate, or another program); pick another with --port or server.port',
  EACCES: 'permission denied (ports below 1024 need privileges); pick another with --port or server.port',
  EADDRNOTAVAIL: 'this host has no such address; check --host or server.host',
};

const listenReason = (error: ListenError): string =>
  `${LISTEN_REASONS[error.code] ?? 'failed'} (${error.code})`;

/** Prints why the CLI failed, in one line where one line says it, and returns the exit code. */
export function reportCliError(error: unknown): number {
  if (error instanceof ConfigError) {
    // The issues carry the whole story; the message would repeat them.
    const [only, ...more] = error.issues;
    if (only === undefined)
      process.stderr.write(`skillgate: config error (${error.code}): ${error.message}\n`);
    else if (more.length === 0)
      process.stderr.write(`skillgate: config error (${error.code}): ${only.path}: ${only.message}\n`);
    else {
      process.stderr.write(`skillgate: config error (${error.code}):\n`);
      for (const issue of error.issues) process.stderr.write(`  ${issue.path}: ${issue.message}\n`);
    }
  } else if (error instanceof SourcesError || error instanceof CredentialsError) {
    // The message names the source or provider and the reason (never a token): one line says it.
    process.stderr.write(`skillgate: ${error.message} (${error.code})\n`);
  } else if (isListenError(error)) {
    process.stderr.write(
      `skillgate: cannot listen on ${error.address}:${error.port}: ${listenReason(error)}\n`,
    );
  } else if (error instanceof UsageError || (error instanceof TypeError && 'code' in error)) {
    process.stderr.write(`skillgate: ${error.message}\n\n${USAGE}`);
  } else {
    process.stderr.write(
      `skillgate: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  return error instanceof UsageError ? 2 : 1;
}
