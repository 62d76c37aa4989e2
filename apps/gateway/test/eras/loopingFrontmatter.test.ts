import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { modernMeta, postModern } from '../directPaths/modernRequests.js';
import { connectClient, startTestGateway, type TestGateway } from '../helpers/testGateway.js';

// A SKILL.md whose frontmatter holds a YAML alias naming a node that holds it parses to a circular value;
// lenient validation serves the skill (an unknown-field warning), and the Skills extension published its
// frontmatter verbatim: every skills/list and skills/get threw while being written, in both eras, and the
// POST was never answered (the client waited until it gave up). The skill keeps its tools but is not
// published (SKILL_NOT_PUBLISHED), and every other skill is listed.
let dir: string;
let gw: TestGateway;
// Past this the client gives up: on the old code the answer never came.
const CLIENT_TIMEOUT = { timeout: 10_000 };
const LOOPING =
  '---\nname: looping\ndescription: Its frontmatter loops.\nx-loop: &a\n  self: *a\n---\nBody.\n';
const entries = z.object({ skills: z.array(z.object({ uri: z.string() })) });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillgate-looping-'));
  await mkdir(join(dir, 'looping'));
  await writeFile(join(dir, 'looping/SKILL.md'), LOOPING);
  await mkdir(join(dir, 'plain'));
  await writeFile(join(dir, 'plain/SKILL.md'), '---\nname: plain\ndescription: A plain skill.\n---\nHi.\n');
  gw = await startTestGateway({ skills: { roots: [dir], validation: 'lenient' } });
});
afterAll(async () => {
  await gw.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a SKILL.md whose frontmatter loops', () => {
  it('is served as tools and left out of the Skills extension, reported', async () => {
    const { catalog } = { catalog: gw.gateway.catalogs.current };
    expect(catalog.skills.has('looping')).toBe(true);
    expect(catalog.extension.entries.has('looping')).toBe(false);
    expect(catalog.extension.problems).toContainEqual(
      expect.objectContaining({ code: 'SKILL_NOT_PUBLISHED', skill: 'looping' }),
    );
  });

  it('leaves skills/list and skills/get of a 2025-era session answered', async () => {
    const { client, close } = await connectClient(gw.url);
    try {
      const list = await client.request(
        { method: 'skills/list', params: {} } as never,
        entries as never,
        CLIENT_TIMEOUT,
      );
      expect((list as z.infer<typeof entries>).skills.map((s) => s.uri)).toEqual(['skill://plain/SKILL.md']);
      await expect(
        client.request(
          { method: 'skills/get', params: { uri: 'skill://looping/SKILL.md' } } as never,
          z.unknown() as never,
          CLIENT_TIMEOUT,
        ),
      ).rejects.toMatchObject({ code: expect.any(Number) });
    } finally {
      await close();
    }
  });

  it('leaves a 2026-07-28 skills/list answered', async () => {
    const answer = await postModern(gw.url, { method: 'skills/list', params: {} }, 7, modernMeta('looping'));
    const body = JSON.parse(answer.body) as { result: z.infer<typeof entries> };
    expect(body.result.skills.map((s) => s.uri)).toEqual(['skill://plain/SKILL.md']);
  });
});
