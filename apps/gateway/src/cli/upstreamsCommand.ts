import { gatewaySettings } from '../compose/gatewaySettings.js';
import { configFrom, type Flags } from './configFrom.js';
import { upstreamSnapshots } from './upstreamSnapshots.js';

/** Connects to every configured upstream once (as serve would), prints state and tools, disconnects. */
export async function upstreamsCommand(flags: Flags): Promise<number> {
  const snapshots = await upstreamSnapshots(gatewaySettings(await configFrom(flags)));
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
    for (const dropped of s.dropped ?? [])
      process.stdout.write(`  dropped: ${dropped.name} (${dropped.reason})\n`);
    for (const tool of s.tools) {
      const line = (tool.description ?? '').split('\n')[0]?.slice(0, 100) ?? '';
      process.stdout.write(`  ${tool.name}${line === '' ? '' : `  ${line}`}\n`);
    }
  }
  return snapshots.every((s) => s.state === 'ready') ? 0 : 1;
}
