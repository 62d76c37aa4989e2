import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FileServer, skillMd, startFileServer } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { materializeSources, type SourcesOptions } from '../src/index.js';
import { sha256, tarGz } from './helpers/archives.js';

// An archive URL's host decides where the gateway goes: a redirect is followed within that host only. Before,
// every redirect was followed, to any host and from https down to http (an archive host could point the
// gateway at any address its network reaches). The other host here is 127.0.0.2, another loopback address.
const archive = tarGz([{ path: 'skills/ok/SKILL.md', body: skillMd('ok') }]);
let elsewhere: FileServer;
let origin: FileServer;

beforeAll(async () => {
  elsewhere = await startFileServer({ '/skills.tar.gz': archive }, { host: '127.0.0.2' });
  origin = await startFileServer(
    { '/real.tar.gz': archive },
    {
      redirects: {
        '/moved.tar.gz': '/real.tar.gz',
        '/away.tar.gz': elsewhere.url('/skills.tar.gz'),
        '/loop.tar.gz': '/loop.tar.gz',
      },
    },
  );
});

afterAll(async () => {
  await origin.close();
  await elsewhere.close();
});

async function options(path: string): Promise<SourcesOptions> {
  const work = await mkdtemp(join(tmpdir(), 'skillgate-archive-redirect-'));
  return {
    sources: [{ id: 'vendor', archive: origin.url(path), sha256: sha256(archive), path: 'skills' }],
    lockFile: join(work, 'skillgate.lock.yaml'),
    cacheDir: join(work, 'cache'),
    timeoutMs: 30_000,
    limits: { maxBytes: 1_000_000, maxFiles: 20 },
    env: {},
    load: { validation: 'lenient' },
  };
}

describe('archive downloads and redirects', () => {
  it('follows a redirect within the archive URL host', async () => {
    const result = await materializeSources(await options('/moved.tar.gz'));
    expect(result.statuses[0]).toMatchObject({ id: 'vendor', state: 'fetched' });
    expect(origin.seen.map((r) => r.url)).toContain('/real.tar.gz');
  });

  it('refuses a redirect to another host without asking that host anything', async () => {
    await expect(materializeSources(await options('/away.tar.gz'))).rejects.toMatchObject({
      code: 'FETCH_FAILED',
      source: 'vendor',
      message: expect.stringContaining('127.0.0.2'),
    });
    expect(elsewhere.seen).toEqual([]);
  });

  it('stops a redirect loop after a few hops', async () => {
    const before = origin.seen.length;
    await expect(materializeSources(await options('/loop.tar.gz'))).rejects.toMatchObject({
      code: 'FETCH_FAILED',
      source: 'vendor',
    });
    expect(origin.seen.length - before).toBe(6);
  });
});
