import type { ConnectionState } from '@skillgate/credentials';
import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { gatewaySettings } from '../compose/gatewaySettings.js';
import { startCredentials } from '../compose/startCredentials.js';
import { startSharedState } from '../compose/startSharedState.js';
import { configFrom, type Flags } from './configFrom.js';
import { UsageError } from './usage.js';

/** One row of `connections --json`: never a token or secret. */
interface ConnectionRow {
  readonly principal: string;
  readonly provider: string;
  readonly state: ConnectionState['state'];
  /** ISO 8601, when the provider said when the access token expires. */
  readonly expires_at?: string;
}

// A bare name is a static token's principal (`token:<name>`); an OAuth principal is given whole.
const principalId = (given: string): string => (given.includes(':') ? given : `token:${given}`);

const rowOf = (c: ConnectionState): ConnectionRow => ({
  principal: c.principal,
  provider: c.provider,
  state: c.state,
  ...(c.expiresAt === undefined ? {} : { expires_at: new Date(c.expiresAt).toISOString() }),
});

const table = (rows: readonly ConnectionRow[]): string => {
  const cells = [
    ['PRINCIPAL', 'PROVIDER', 'STATE', 'EXPIRES'],
    ...rows.map((r) => [r.principal, r.provider, r.state, r.expires_at ?? '-']),
  ];
  const widths = [0, 1, 2].map((i) => Math.max(...cells.map((row) => row[i]?.length ?? 0)));
  return cells
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
};

/**
 * Lists the stored per-principal connections (never their values), or deletes one with --revoke (revoked at
 * the provider where it offers RFC 7009): the store the gateway uses, opened with the same keys (file or Redis).
 */
export async function connectionsCommand(flags: Flags): Promise<number> {
  if (flags.revoke !== undefined && flags.principal === undefined) {
    throw new UsageError('--revoke PROVIDER needs --principal P (whose connection to delete)');
  }
  const settings = gatewaySettings(await configFrom(flags));
  if (settings.credentials === undefined || settings.credentials.providers.length === 0) {
    process.stdout.write(flags.json === true ? '[]\n' : 'no credentials.providers configured\n');
    return 0;
  }
  // Warnings (a record that does not open) go to stderr as the gateway's log lines; nothing else is logged.
  const log = pino({ level: 'warn' }, pino.destination(2)) as unknown as FastifyBaseLogger;
  const state =
    settings.credentials.store === 'redis'
      ? await startSharedState({ settings: settings.state, env: process.env, log, onSessionEnded: () => {} })
      : undefined;
  try {
    const credentials = startCredentials({
      settings,
      env: process.env,
      log,
      metrics: { inc: () => {} },
      redis: state?.redis,
    });
    if (credentials === undefined) return 0;
    try {
      return await run(credentials, flags);
    } finally {
      await credentials.close();
    }
  } finally {
    await state?.close();
  }
}

async function run(
  credentials: NonNullable<ReturnType<typeof startCredentials>>,
  flags: Flags,
): Promise<number> {
  const principal = flags.principal === undefined ? undefined : principalId(flags.principal);
  if (flags.revoke !== undefined && principal !== undefined) {
    const { removed, revoked } = await credentials.disconnect(principal, flags.revoke);
    const outcome = { principal, provider: flags.revoke, removed, revoked };
    process.stdout.write(
      flags.json === true
        ? `${JSON.stringify(outcome)}\n`
        : removed
          ? `deleted ${flags.revoke} of ${principal}${revoked ? ' (revoked at the provider)' : ''}\n`
          : `${principal} has no ${flags.revoke} connection\n`,
    );
    return removed ? 0 : 1;
  }
  const rows = (await credentials.connections(principal)).map(rowOf);
  if (flags.json === true) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  else process.stdout.write(rows.length === 0 ? 'no connections\n' : `${table(rows)}\n`);
  return 0;
}
