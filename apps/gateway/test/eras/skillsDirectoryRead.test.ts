import { DIRECTORY_MIME_TYPE, SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { createTempSkills, type TempSkills } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from '../helpers/rawHttp.js';
import { EXAMPLES_ROOT, startTestGateway, type TestGateway } from '../helpers/testGateway.js';
import { connectV2 } from '../helpers/v2Client.js';

const env = { DIR_ALL: 'dir-all-token-0123456789', DIR_CSV: 'dir-csv-token-0123456789' };

// A folder past one page (the SDK's 100 entries): 150 references.
const MANY = 150;

let gw: TestGateway;
let temp: TempSkills;
beforeAll(async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < MANY; i++) files[`references/note-${String(i).padStart(3, '0')}.md`] = `# Note ${i}\n`;
  temp = await createTempSkills({ 'many-notes': { files } });
  gw = await startTestGateway(
    {
      skills: { roots: [EXAMPLES_ROOT, temp.root] },
      auth: {
        tokens: [
          { name: 'all', token_env: 'DIR_ALL', skills: ['*'] },
          { name: 'csv', token_env: 'DIR_CSV', skills: ['csv-*'] },
        ],
      },
    },
    { ...process.env, ...env },
  );
});
afterAll(async () => {
  await gw.close();
  await temp.close();
});

describe('resources/directory/read (the Skills extension, SEP-2640)', () => {
  for (const era of ['legacy', 'modern'] as const) {
    it(`lists a skill's folders and files to a real SkillsClient (${era} era), only for the caller's skills`, async () => {
      const csv = await connectV2(gw.url, { era, token: env.DIR_CSV });
      try {
        const skills = new SkillsClient(csv.client);
        expect(skills.directoryRead).toBe(true);
        const root = await skills.readDirectory('skill://csv-tools');
        const names = root.resources.map((r) => r.name);
        expect(names).toContain('SKILL.md');
        expect(names).toContain('scripts');
        const scripts = root.resources.find((r) => r.name === 'scripts');
        expect(scripts?.mimeType).toBe(DIRECTORY_MIME_TYPE);
        expect(scripts?.uri).toBe('skill://csv-tools/scripts');
        // A subfolder lists its own files, with size and MIME type; sorted by URI.
        const inside = await skills.readDirectory('skill://csv-tools/scripts');
        expect(inside.resources.length).toBeGreaterThan(0);
        for (const file of inside.resources) {
          expect(file.uri.startsWith('skill://csv-tools/scripts/')).toBe(true);
          expect(typeof file.size).toBe('number');
        }
        const uris = inside.resources.map((r) => r.uri);
        expect(uris).toEqual([...uris].sort());
        // Every file the entry lists is reachable through the folders.
        const { skill } = await skills.get('skill://csv-tools/SKILL.md');
        const listedFiles = Array.isArray(skill.resources) ? skill.resources.map((r) => r.uri) : [];
        const walked: string[] = [];
        const walk = async (uri: string): Promise<void> => {
          for (const child of (await skills.readDirectory(uri)).resources) {
            if (child.mimeType === DIRECTORY_MIME_TYPE) await walk(child.uri);
            else walked.push(child.uri);
          }
        };
        await walk('skill://csv-tools');
        expect(walked.sort()).toEqual([...listedFiles].sort());
        // Another tenant's skill, a file and a nonexistent folder are all the same -32602.
        for (const uri of ['skill://text-stats', 'skill://csv-tools/SKILL.md', 'skill://nope']) {
          await expect(skills.readDirectory(uri), uri).rejects.toThrow(/not a directory resource/);
        }
      } finally {
        await csv.close();
      }
    });
  }

  it('pages a folder with more children than a page holds, every child once', async () => {
    const all = await connectV2(gw.url, { era: 'modern', token: env.DIR_ALL });
    try {
      const listed = await new SkillsClient(all.client).readDirectory('skill://many-notes/references');
      const uris = listed.resources.map((r) => r.uri);
      expect(uris).toHaveLength(MANY);
      expect(new Set(uris).size).toBe(MANY);
      expect(listed).toMatchObject({ cacheScope: 'public' });
      // The first page holds 100 and names the next; a cursor the gateway did not mint is -32602.
      const modernHeaders = {
        authorization: `Bearer ${env.DIR_ALL}`,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'resources/directory/read',
      };
      const page = async (cursor?: string) =>
        (await (
          await post(
            gw.url,
            {
              jsonrpc: '2.0',
              id: 1,
              method: 'resources/directory/read',
              params: {
                uri: 'skill://many-notes/references',
                ...(cursor === undefined ? {} : { cursor }),
                _meta: {
                  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
                  'io.modelcontextprotocol/clientCapabilities': {},
                },
              },
            },
            modernHeaders,
          )
        ).json()) as { result?: { resources: unknown[]; nextCursor?: string }; error?: unknown };
      const first = await page();
      expect(first.result?.resources).toHaveLength(100);
      expect(typeof first.result?.nextCursor).toBe('string');
      expect((await page(first.result?.nextCursor)).result?.resources).toHaveLength(MANY - 100);
      expect(await page('bm90LWEtY3Vyc29y')).toMatchObject({
        error: { code: -32602, message: 'Invalid cursor' },
      });
    } finally {
      await all.close();
    }
  });
});
