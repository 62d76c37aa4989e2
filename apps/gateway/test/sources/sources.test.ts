import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  createTestRepo,
  type FileServer,
  type GitServer,
  skillMd,
  startFileServer,
  startGitServer,
  type TestRepo,
  waitFor,
} from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, startTestGateway, textOf } from '../helpers/testGateway.js';
import { connectV2 } from '../helpers/v2Client.js';

const TOKEN = 'gw-secret-token-71c2e9';
let git: GitServer;
let files: FileServer;
let company: TestRepo;
let companyCommit: string;
let work: string;
let archiveSha: string;

/** A one-file .tar.gz holding `skills/vendor-a/SKILL.md` (ustar header written by hand). */
function vendorArchive(): Buffer {
  const body = Buffer.from(skillMd('vendor-a'));
  const header = Buffer.alloc(512);
  header.write('skills/vendor-a/SKILL.md', 0);
  header.write('0000644\0', 100);
  header.write('0000000\0', 108);
  header.write('0000000\0', 116);
  header.write(`${body.length.toString(8).padStart(11, '0')}\0`, 124);
  header.write('00000000000\0', 136);
  header.write('        ', 148);
  header.write('0', 156);
  header.write('ustar\u000000', 257);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  const pad = Buffer.alloc((512 - (body.length % 512)) % 512);
  return gzipSync(Buffer.concat([header, body, pad, Buffer.alloc(1024)]));
}

beforeAll(async () => {
  git = await startGitServer({ tokens: { 'private.git': TOKEN } });
  company = await createTestRepo(git, 'company.git');
  companyCommit = await company.commit({
    'skills/pdf-fill/SKILL.md': skillMd('pdf-fill', 'Fill PDF forms.'),
    'skills/pdf-fill/scripts/fill.py': 'print("filled")\n',
    'skills/ignored/SKILL.md': skillMd('ignored'),
  });
  await company.tag('v3');
  const privateRepo = await createTestRepo(git, 'private.git');
  await privateRepo.commit({ 'secret-skill/SKILL.md': skillMd('secret-skill', 'Private know-how.') });
  const archive = vendorArchive();
  archiveSha = createHash('sha256').update(archive).digest('hex');
  files = await startFileServer({ '/vendor.tar.gz': archive });
  work = await mkdtemp(join(tmpdir(), 'skillgate-gw-sources-'));
});

afterAll(async () => {
  await Promise.all([git.close(), files.close(), rm(work, { recursive: true, force: true })]);
});

const config = () => ({
  sources: {
    list: [
      { id: 'company', git: git.url('company.git'), ref: 'v3', path: 'skills', skills: ['pdf-*'] },
      { id: 'private', git: git.url('private.git'), token_env: 'PRIVATE_GIT_TOKEN' },
      { id: 'vendor', archive: files.url('/vendor.tar.gz'), sha256: archiveSha, path: 'skills' },
    ],
    lock_file: join(work, 'skillgate.lock.yaml'),
    cache_dir: join(work, 'cache'),
  },
});
const env = { ...process.env, PRIVATE_GIT_TOKEN: TOKEN };

describe('skills from git and archives', () => {
  it('serves a git, a private git and an archive source pinned, to clients of both eras, with their source shown', async () => {
    const logs: string[] = [];
    const gw = await startTestGateway(config(), env, logs);
    try {
      const legacy = await connectClient(gw.url);
      const info = await legacy.client.callTool({ name: 'skill_pdf-fill_get_info', arguments: {} });
      expect(textOf(info)).toContain(`Source: "company" at ${companyCommit}`);
      const secret = await legacy.client.callTool({ name: 'skill_secret-skill_get_info', arguments: {} });
      expect(textOf(secret)).toMatch(/Source: "private" at [0-9a-f]{40}/);
      // The globs take only pdf-*: `ignored` is not served.
      const { tools } = await legacy.client.listTools();
      expect(tools.map((t) => t.name)).not.toContain('skill_ignored_get_info');
      const listed = (await legacy.client.request({ method: 'skills/list', params: {} }, ResultSchema)) as {
        skills?: Array<{ frontmatter: { name: string }; _meta?: Record<string, unknown> }>;
      };
      const vendor = listed.skills?.find((s) => s.frontmatter.name === 'vendor-a');
      expect(vendor?._meta).toEqual({
        'io.skillgate/source': { id: 'vendor', commit: `sha256:${archiveSha}` },
      });
      await legacy.close();

      const modern = await connectV2(gw.url, { era: 'modern' });
      const modernInfo = await modern.client.callTool({ name: 'skill_pdf-fill_get_info', arguments: {} });
      expect(textOf(modernInfo)).toContain(`Source: "company" at ${companyCommit}`);
      await modern.close();

      const ready = (await (await fetch(`${gw.base}/readyz`)).json()) as {
        sources: Array<Record<string, unknown>>;
      };
      expect(ready.sources.map((s) => [s.id, s.state, s.commit])).toEqual([
        ['company', 'fetched', companyCommit],
        ['private', 'fetched', expect.stringMatching(/^[0-9a-f]{40}$/)],
        ['vendor', 'fetched', `sha256:${archiveSha}`],
      ]);
      const page = await (await fetch(`${gw.base}/`)).text();
      expect(page).toContain('data-source="company"');

      // The token is nowhere a person or a file could read it.
      const lock = await readFile(join(work, 'skillgate.lock.yaml'), 'utf8');
      const cachePaths = (await readdir(join(work, 'cache'), { recursive: true })).join('\n');
      for (const text of [logs.join('\n'), JSON.stringify(ready), page, lock, cachePaths]) {
        expect(text).not.toContain(TOKEN);
        expect(text).not.toContain(Buffer.from(`x-access-token:${TOKEN}`).toString('base64'));
      }
      expect(logs.join('\n')).toContain('source \\"company\\": resolved v3 to');
    } finally {
      await gw.close();
    }
  });

  it('with the git server gone, a start from the lock and the verified cache still serves, with a warning', async () => {
    await git.stop();
    try {
      const logs: string[] = [];
      const gw = await startTestGateway(config(), env, logs);
      try {
        const client = await connectClient(gw.url);
        const info = await client.client.callTool({ name: 'skill_pdf-fill_get_info', arguments: {} });
        expect(textOf(info)).toContain(`Source: "company" at ${companyCommit}`);
        await client.close();
        await waitFor(() => logs.some((line) => line.includes('serving the locked commit')));
        const ready = (await (await fetch(`${gw.base}/readyz`)).json()) as {
          sources: Array<Record<string, unknown>>;
        };
        expect(ready.sources[0]).toMatchObject({ id: 'company', state: 'cached' });
        expect(JSON.stringify(ready)).not.toContain(TOKEN);
      } finally {
        await gw.close();
      }
      // Without the cache nothing verified is left: the start fails, naming the source.
      await rm(join(work, 'cache'), { recursive: true, force: true });
      await expect(startTestGateway(config(), env)).rejects.toMatchObject({
        code: 'FETCH_FAILED',
        source: 'company',
      });
    } finally {
      await git.start();
    }
  });
});
