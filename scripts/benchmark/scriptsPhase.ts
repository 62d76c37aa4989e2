// The scripts phase of `pnpm bench`: a trivial bash script through the run tool, sandbox off and in
// bubblewrap, against running it directly with execa; the two gateways measured in alternation.
import { join } from 'node:path';
import { execa } from 'execa';
import type { BenchContext } from './context.js';
import { type BenchServer, openSessions, percentile, rpc, startServer } from './support.js';
import { TARGETS } from './targets.js';

/** Rows of the scripts group. */
export async function scriptsPhase(context: BenchContext): Promise<void> {
  const { row, fmt } = context;
  const root = await context.skills(10);
  const runs = context.quick ? 30 : 200;
  const plain = await startServer('gateway', root, 'namespaced', 'off');
  const sandboxed = await startServer('gateway', root, 'namespaced', 'bwrap');
  const call = async (server: BenchServer, session: string, id: number, name: string) => {
    const t = performance.now();
    const response = await rpc(server.url, session, {
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: {} },
    });
    const elapsed = performance.now() - t;
    const result = response.result as { isError?: boolean } | undefined;
    if (result === undefined || result.isError === true)
      throw new Error(`${name}: ${JSON.stringify(response)}`);
    return elapsed;
  };
  const sessions: string[] = [];
  for (const server of [plain, sandboxed]) {
    const [session] = (await openSessions(server.url, 1)).ids;
    if (session === undefined) throw new Error('no session');
    await call(server, session, 1, 'skill_gen-00000_get_info');
    sessions.push(session);
  }
  const [plainSession = '', sandboxSession = ''] = sessions;
  const viaGateway: number[] = [];
  const inSandbox: number[] = [];
  const direct: number[] = [];
  const script = join(root, 'gen-00000', 'scripts', 'check.sh');
  for (let i = 0; i < runs; i++) {
    viaGateway.push(await call(plain, plainSession, 10 + i, 'skill_gen-00000_run_check_sh'));
    inSandbox.push(await call(sandboxed, sandboxSession, 10 + i, 'skill_gen-00000_run_check_sh'));
    const t = performance.now();
    await execa('bash', [script], { cwd: join(root, 'gen-00000') });
    direct.push(performance.now() - t);
  }
  await plain.stop();
  await sandboxed.stop();
  const [g50, g99, s50, s99, d50, d99] = [
    percentile(viaGateway, 50),
    percentile(viaGateway, 99),
    percentile(inSandbox, 50),
    percentile(inSandbox, 99),
    percentile(direct, 50),
    percentile(direct, 99),
  ];
  context.result('script_overhead', {
    gateway_p50: g50,
    gateway_p99: g99,
    sandbox_p50: s50,
    sandbox_p99: s99,
    direct_p50: d50,
    direct_p99: d99,
  });
  row(
    'scripts',
    'run tool p50 / p99 ms (trivial bash script, sandbox off)',
    `${fmt(g50, 1)} / ${fmt(g99, 1)}`,
    `direct execa ${fmt(d50, 1)} / ${fmt(d99, 1)}`,
    `+${fmt(g50 - d50, 1)} ms`,
    TARGETS.scriptOverhead,
    g50 - d50,
  );
  const signed = (n: number) => `${n >= 0 ? '+' : '-'}${fmt(Math.abs(n), 1)}`;
  row(
    'scripts',
    'run tool p50 / p99 ms (same, in the bwrap sandbox)',
    `${fmt(s50, 1)} / ${fmt(s99, 1)}`,
    `sandbox off ${fmt(g50, 1)} / ${fmt(g99, 1)}`,
    `${signed(s50 - g50)} / ${signed(s99 - g99)} ms`,
    TARGETS.sandboxOverhead,
    s50 - g50,
  );
}
