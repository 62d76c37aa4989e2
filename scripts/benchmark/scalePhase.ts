// The scale phase of `pnpm bench`: start-up and peak RSS at 1,000 and 10,000 skills (10,000 not in --quick),
// memory per idle session and the session open rate, against the SDK-style server.
import type { BenchContext } from './context.js';
import { openSessions, peakRss, serverMemory, startServer } from './support.js';
import { TARGETS } from './targets.js';

/** Rows of the scale group. */
export async function scalePhase(context: BenchContext): Promise<void> {
  const { row, fmt, quick } = context;
  const sessions = quick ? 300 : 2000;
  const small = await context.skills(10);
  const thousand = await context.skills(1000);
  for (const [label, root] of [
    ['1,000 skills', thousand],
    ['10,000 skills', quick ? undefined : await context.skills(10_000)],
  ] as const) {
    if (root === undefined) continue;
    const server = await startServer('gateway', root);
    const rss = await peakRss(server.pid);
    context.result(`startup_${label}`, { ms: server.startupMs, peak_rss: rss });
    row('scale', `start-up to listening (${label})`, `${fmt(server.startupMs)} ms`, '', '', '');
    row('scale', `peak RSS (${label})`, `${fmt(rss / 2 ** 20)} MiB`, '', '', '');
    await server.stop();
  }
  const perSession: Record<string, number> = {};
  const rates: Record<string, number> = {};
  for (const [label, kind, root, n] of [
    ['gateway, 10 skills', 'gateway', small, sessions],
    ['gateway, 1,000 skills', 'gateway', thousand, sessions],
    ['SDK-style, 1,000 skills', 'sdk-reference', thousand, Math.min(sessions, 200)],
  ] as const) {
    const server = await startServer(kind, root);
    await openSessions(server.url, 20);
    const before = await serverMemory(server.url);
    const { perSecond } = await openSessions(server.url, n);
    const after = await serverMemory(server.url);
    perSession[label] = (after - before) / n;
    rates[label] = perSecond;
    await server.stop();
  }
  context.result('memory_per_session', perSession);
  context.result('session_open_rate', rates);
  const g10 = perSession['gateway, 10 skills'] ?? 0;
  const g1k = perSession['gateway, 1,000 skills'] ?? 0;
  const ref = perSession['SDK-style, 1,000 skills'] ?? 1;
  row('scale', 'memory per idle session (10 skills)', `${fmt(g10 / 1024, 1)} KiB`, '', '', '');
  row(
    'scale',
    'memory per idle session (1,000 skills)',
    `${fmt(g1k / 1024, 1)} KiB`,
    `SDK-style ${fmt(ref / 1024)} KiB`,
    `${fmt(ref / g1k, 0)}x less`,
    TARGETS.sessionMemory,
    g1k,
  );
  row(
    'scale',
    'per-session memory, 1,000 vs 10 skills',
    `${fmt((g1k / g10 - 1) * 100, 1)}%`,
    '',
    '',
    TARGETS.sessionMemoryFlat,
    g1k / g10 - 1,
  );
  const rg = rates['gateway, 1,000 skills'] ?? 0;
  const ra = rates['SDK-style, 1,000 skills'] ?? 1;
  row(
    'scale',
    'session open rate (1,000 skills)',
    `${fmt(rg)}/s`,
    `SDK-style ${fmt(ra)}/s`,
    `${fmt(rg / ra, 1)}x`,
    TARGETS.sessionOpenRate,
    rg / ra,
  );
}
