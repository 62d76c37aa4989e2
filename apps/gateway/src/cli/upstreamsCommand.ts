import { upstreamDefinitions } from '../compose/gatewaySettings.js';
import { createGatewayUpstreamPool } from '../upstreams/createGatewayUpstreamPool.js';
import { configFrom, type Flags } from './configFrom.js';

/** Connects to every configured upstream once (as serve would), prints state and tools, disconnects. */
export async function upstreamsCommand(flags: Flags): Promise<number> {
  const config = await configFrom(flags);
  const quiet = { info: () => {}, warn: () => {} };
  const pool = createGatewayUpstreamPool({
    upstreams: upstreamDefinitions(config),
    env: process.env,
    log: quiet,
  });
  try {
    await pool.start();
    const snapshots = pool.snapshots();
    if (flags.json === true) {
      process.stdout.write(`${JSON.stringify(snapshots, null, 2)}\n`);
    } else if (snapshots.length === 0) {
      process.stdout.write('no upstreams configured\n');
    }
    for (const s of flags.json === true ? [] : snapshots) {
      const server =
        s.serverInfo === undefined ? '' : ` — ${s.serverInfo.name} ${s.serverInfo.version ?? ''}`.trimEnd();
      process.stdout.write(`${s.id}: ${s.state}${server} (${s.tools.length} tools, skill: ${s.skill})\n`);
      if (s.lastError !== undefined) process.stdout.write(`  error: ${s.lastError}\n`);
      for (const tool of s.tools) {
        const line = (tool.description ?? '').split('\n')[0]?.slice(0, 100) ?? '';
        process.stdout.write(`  ${tool.name}${line === '' ? '' : `  ${line}`}\n`);
      }
    }
    return snapshots.every((s) => s.state === 'ready') ? 0 : 1;
  } finally {
    await pool.close();
  }
}
