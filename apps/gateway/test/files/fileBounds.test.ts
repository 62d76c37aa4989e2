import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { mkdir, mkdtemp, rm, truncate, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connectClient, startTestGateway, type TestGateway, textOf } from '../helpers/testGateway.js';

// Regression tests named after the attacks of issue 10 on served files: a reference swapped for a FIFO, a
// reference grown huge, a FIFO as SKILL.md. Each asserts what a user notices: an answer in time, bounded
// memory, a gateway that starts and reloads.

let gw: TestGateway | undefined;
const dirs: string[] = [];
const fifos: string[] = [];

afterEach(async () => {
  await gw?.close();
  gw = undefined;
  // Opening a FIFO read-write never blocks and counts as a writer: a reader stuck on it (the bug guarded
  // against) gets EOF, so a failing test leaves no libuv thread hanging.
  for (const fifo of fifos.splice(0)) {
    try {
      closeSync(openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK));
    } catch {
      // Gone already.
    }
  }
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function skillRoot(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'skillgate-bounds-'));
  dirs.push(root);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return root;
}

const skillMd = (name: string) => `---\nname: ${name}\ndescription: The ${name} skill.\n---\n# ${name}\n`;

function makeFifo(path: string): void {
  execFileSync('mkfifo', [path]);
  fifos.push(path);
}

const READS = 6; // more than libuv's 4 file threads

async function start(root: string, extra: Record<string, unknown> = {}): Promise<TestGateway> {
  gw = await startTestGateway({ skills: { roots: [root], disclosure: 'universal' }, ...extra });
  return gw;
}

describe('bounded file reads through the gateway', () => {
  it('a reference replaced by a FIFO after start: six concurrent reads each answer an error in time, other reads keep working', async () => {
    const files: Record<string, string> = { 'probe/SKILL.md': skillMd('probe'), 'probe/ok.md': 'still fine' };
    for (let i = 0; i < READS; i++) files[`probe/references/r${i}.md`] = `reference ${i}`;
    const root = await skillRoot(files);
    const { url } = await start(root);
    const c = await connectClient(url);
    for (let i = 0; i < READS; i++) {
      const path = join(root, 'probe', 'references', `r${i}.md`);
      await unlink(path);
      makeFifo(path);
    }
    const read = (path: string) =>
      c.client.callTool({ name: 'read_skill_file', arguments: { skill: 'probe', path } });
    const started = Date.now();
    const [attacks, healthy] = await Promise.all([
      Promise.all(Array.from({ length: READS }, (_, i) => read(`references/r${i}.md`))),
      read('ok.md'),
    ]);
    expect(Date.now() - started).toBeLessThan(10_000);
    for (const result of attacks) {
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('no longer a regular file');
    }
    expect(textOf(healthy)).toBe('still fine');
    // And the next reads are not stuck behind them.
    expect(textOf(await read('ok.md'))).toBe('still fine');
    await c.close();
  });

  it('a reference grown to 1 GiB (sparse) after start: reads refuse it as changed at once, and memory stays bounded', async () => {
    const root = await skillRoot({
      'probe/SKILL.md': skillMd('probe'),
      'probe/references/log.txt': 'line\n',
      'probe/ok.md': 'still fine',
    });
    const { url } = await start(root, { resources: { max_text_bytes: 64 * 1024 } });
    const c = await connectClient(url);
    await truncate(join(root, 'probe', 'references', 'log.txt'), 2 ** 30);
    const before = process.memoryUsage().rss;
    const read = (path: string) =>
      c.client.callTool({ name: 'read_skill_file', arguments: { skill: 'probe', path } });
    const results = await Promise.all(Array.from({ length: 4 }, () => read('references/log.txt')));
    const grown = process.memoryUsage().rss - before;
    for (const result of results) {
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain(
        'references/log.txt changed on disk since the skills catalog was loaded',
      );
    }
    // Four whole reads would be 4 GiB.
    expect(grown).toBeLessThan(200 * 2 ** 20);
    expect(textOf(await read('ok.md'))).toBe('still fine');
    await c.close();
  });

  it('a 4 GiB sparse file in a skill: skipped at load before it is read or hashed, reported, and the rest is served', async () => {
    const root = await skillRoot({
      'probe/SKILL.md': skillMd('probe'),
      'probe/assets/huge.bin': '',
      'probe/ok.md': 'still fine',
    });
    await truncate(join(root, 'probe', 'assets', 'huge.bin'), 4 * 2 ** 30);
    const { url, gateway } = await start(root);
    const files = gateway.catalogs.current.skills.get('probe')?.skill.files.map((f) => f.path);
    expect(files).toEqual(['ok.md']);
    expect(gateway.catalogs.current.problems).toContainEqual(
      expect.objectContaining({
        code: 'FILE_SKIPPED',
        file: join(root, 'probe', 'assets', 'huge.bin'),
        reason: `assets/huge.bin: ${4 * 2 ** 30} bytes, over the ${64 * 2 ** 20}-byte limit (skills.max_file_bytes); not served, and not read or hashed`,
      }),
    );
    const c = await connectClient(url);
    const read = (path: string) =>
      c.client.callTool({ name: 'read_skill_file', arguments: { skill: 'probe', path } });
    expect(textOf(await read('ok.md'))).toBe('still fine');
    expect((await read('assets/huge.bin')).isError).toBe(true);
    await c.close();
  });

  it('a FIFO as SKILL.md: the gateway still starts listening, serves the other skills, and reloads finish', async () => {
    const root = await skillRoot({
      'good/SKILL.md': skillMd('good'),
      'good/a.md': 'a',
      'trap/notes.md': 'n',
    });
    makeFifo(join(root, 'trap', 'SKILL.md'));
    const { url, gateway } = await start(root);
    expect([...gateway.catalogs.current.skills.keys()]).toEqual(['good']);
    expect(gateway.catalogs.current.problems).toContainEqual(
      expect.objectContaining({ code: 'SKILL_MD_MISSING', reason: 'SKILL.md is not a regular file' }),
    );
    // A second FIFO appears and the catalog reloads: the reload completes.
    await mkdir(join(root, 'trap2'));
    makeFifo(join(root, 'trap2', 'SKILL.md'));
    const reloaded = await gateway.catalogs.reload();
    expect([...reloaded.skills.keys()]).toEqual(['good']);
    const c = await connectClient(url);
    const result = await c.client.callTool({
      name: 'read_skill_file',
      arguments: { skill: 'good', path: 'a.md' },
    });
    expect(textOf(result)).toBe('a');
    await c.close();
  });

  it('a 50 MB SKILL.md is refused at load, so get_info never serves it', async () => {
    const root = await skillRoot({ 'good/SKILL.md': skillMd('good'), 'huge/SKILL.md': skillMd('huge') });
    await truncate(join(root, 'huge', 'SKILL.md'), 50 * 2 ** 20);
    const { gateway } = await start(root);
    expect([...gateway.catalogs.current.skills.keys()]).toEqual(['good']);
    expect(gateway.catalogs.current.problems).toContainEqual(
      expect.objectContaining({ code: 'SKILL_MD_TOO_LARGE', file: join(root, 'huge', 'SKILL.md') }),
    );
  });

  it('1,000 skills with long descriptions: initialize instructions stay within skills.max_instructions_chars', async () => {
    const files: Record<string, string> = {};
    const long = 'Handles one very specific kind of document in great detail. '.repeat(15);
    for (let i = 0; i < 1000; i++) {
      const name = `s${String(i).padStart(4, '0')}`;
      files[`${name}/SKILL.md`] = `---\nname: ${name}\ndescription: ${long}\n---\n# ${name}\n`;
    }
    const root = await skillRoot(files);
    // The default budget, then a tighter one: both hold, and every skill stays reachable by its tool.
    for (const budget of [undefined, 4096]) {
      const server = await startTestGateway({
        skills: { roots: [root], ...(budget === undefined ? {} : { max_instructions_chars: budget }) },
        // The namespaced summary is what is bounded here: past tools.max_listed the list would be search's.
        tools: { max_listed: 100_000 },
      });
      try {
        const client = await connectClient(server.url);
        const instructions = client.client.getInstructions() ?? '';
        // The whole instructions, how-to included, within the budget (default 2,048: what hosts keep).
        expect(instructions.length).toBeLessThanOrEqual(budget ?? 2048);
        expect(instructions).toMatch(/<note>\d+ more skills/);
        expect((await client.client.listTools()).tools).toHaveLength(1000);
        await client.close();
      } finally {
        await server.close();
      }
    }
  });
});
