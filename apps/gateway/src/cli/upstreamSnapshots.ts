import { probeSandbox } from '@skillgate/runner';
import type { UpstreamSnapshot } from '@skillgate/skills';
import type { GatewaySettings } from '../compose/gatewaySettings.js';
import { createGatewayUpstreamPool } from '../upstreams/createGatewayUpstreamPool.js';

/**
 * The upstreams' snapshots after one connection attempt each (as serve would start them, stdio servers in
 * the same sandbox); the pool is closed again before they are returned.
 */
export async function upstreamSnapshots(
  settings: Pick<GatewaySettings, 'upstreams' | 'sandbox'>,
): Promise<readonly UpstreamSnapshot[]> {
  if (settings.upstreams.length === 0) return [];
  const quiet = { info: () => {}, warn: () => {} };
  const sandbox = await probeSandbox({ mode: settings.sandbox, searchPath: process.env.PATH ?? '' });
  const pool = createGatewayUpstreamPool({
    upstreams: settings.upstreams,
    env: process.env,
    log: quiet,
    // The operator's own terminal: the real errors, as the environment they already hold.
    secrets: [],
    bwrap: sandbox.mode === 'bwrap' ? sandbox.bwrapPath : undefined,
  });
  try {
    await pool.start();
    return pool.snapshots();
  } finally {
    await pool.close();
  }
}
