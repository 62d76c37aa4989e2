// The operator page (GET /) of 1,000 skills: server time and a real browser's time to load it, next to the
// 2026-07-28 tools/list of the same catalog on the same gateway, in the same run.
import { chromium } from 'playwright-core';
import type { BenchContext } from './context.js';
import { percentile, startServer } from './support.js';
import { TARGETS } from './targets.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** Median milliseconds of `runs` sequential runs of `once` (after one warm-up run). */
async function medianMs(runs: number, once: () => Promise<void>): Promise<number> {
  await once();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await once();
    times.push(performance.now() - started);
  }
  return percentile(times, 50);
}

/** What operatorPageBench measured. */
export interface OperatorPageFigures {
  /** Median ms of GET / (the whole HTML read). */
  readonly pageMs: number;
  readonly pageBytes: number;
  /** Median ms of one 2026-07-28 tools/list (catalog mode) of the same catalog. */
  readonly toolsListMs: number;
  /** Median ms from navigation to the load event in headless Chromium. */
  readonly browserMs: number;
  /** Skill rows the browser found (the page must hold them all). */
  readonly rows: number;
}

/** On one gateway serving `root`, GET / against tools/list, then the page in Debian's chromium. */
async function operatorPageBench(root: string, runs: number): Promise<OperatorPageFigures> {
  const gateway = await startServer('gateway', root);
  try {
    let pageBytes = 0;
    const pageMs = await medianMs(runs, async () => {
      const response = await fetch(`${gateway.url}/`);
      if (!response.ok) throw new Error(`GET / answered ${response.status}`);
      pageBytes = Buffer.byteLength(await response.text());
    });
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } });
    const toolsListMs = await medianMs(runs, async () => {
      const response = await fetch(`${gateway.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/list',
        },
        body,
      });
      await response.text();
    });
    const browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'],
    });
    try {
      const page = await browser.newPage();
      const browserMs = await medianMs(Math.max(1, Math.floor(runs / 2)), async () => {
        await page.goto(`${gateway.url}/`, { waitUntil: 'load' });
      });
      const rows = await page.locator('details[data-skill]').count();
      return { pageMs, pageBytes, toolsListMs, browserMs, rows };
    } finally {
      await browser.close();
    }
  } finally {
    await gateway.stop();
  }
}

/** The operator-page phase: GET / of 1,000 skills (10 files each), server time and browser load. */
export async function operatorPagePhase(context: BenchContext): Promise<void> {
  const { row, fmt } = context;
  const f = await operatorPageBench(await context.skills(1000, 5), context.quick ? 4 : 10);
  context.result('operator_page', f);
  row(
    'operator',
    'GET / of 1,000 skills, median ms',
    fmt(f.pageMs, 1),
    `modern tools/list ${fmt(f.toolsListMs, 1)} ms`,
    `${fmt(f.pageMs / f.toolsListMs, 1)}x`,
    '',
  );
  row(
    'operator',
    'page in headless Chromium, navigation to load, median ms',
    fmt(f.browserMs, 0),
    `${fmt(f.pageBytes / 1024, 0)} KiB, ${fmt(f.rows)} skill rows`,
    `${fmt(f.browserMs / 1000, 2)} s`,
    TARGETS.operatorPageLoad,
    // A page missing skill rows is no load time at all.
    f.rows === 1000 ? f.browserMs : Number.POSITIVE_INFINITY,
  );
}
