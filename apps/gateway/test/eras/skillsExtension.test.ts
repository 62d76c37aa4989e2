import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { SkillsClient, SkillVerificationError } from '@modelcontextprotocol/client/ext/skills';
import { waitFor } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messagesOf, post } from '../helpers/rawHttp.js';
import { EXAMPLES_ROOT, startTestGateway, type TestGateway } from '../helpers/testGateway.js';
import { connectV2, type V2TestClient } from '../helpers/v2Client.js';

const MODERN = '2026-07-28';
const meta = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const env = { ALL_TOKEN: 'all-skills-token-1', GEN_TOKEN: 'gen-skills-token-1' };
const GENERATED = 120;
const MAX_TEXT = 4096;
const MAX_BINARY = 2048;

const FULL_FRONTMATTER = {
  name: 'full-fm',
  description: 'A skill with every kind of frontmatter field.',
  license: 'Apache-2.0',
  compatibility: 'Needs python3',
  metadata: { author: 'skillgate-tests', version: '1.0' },
  'allowed-tools': 'Bash(git:*) Read',
  'x-review': { status: 'approved', reviewers: ['ana', 'bo'], round: 2 },
};
const FULL_SKILL_MD = `---
name: full-fm
description: A skill with every kind of frontmatter field.
license: Apache-2.0
compatibility: Needs python3
metadata:
  author: skillgate-tests
  version: "1.0"
allowed-tools: Bash(git:*) Read
x-review:
  status: approved
  reviewers: [ana, bo]
  round: 2
---

# Full frontmatter

Read \`references/guide.md\` first.
`;
// A PNG signature and some zero bytes: sniffed as binary.
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.alloc(64, 0),
]);

const sha256 = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

async function put(root: string, path: string, content: string | Buffer): Promise<void> {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), content);
}

/** 120 generated skills plus the hand-written ones, in a fresh folder. */
async function makeRoot(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'skillgate-skillsext-'));
  for (let i = 0; i < GENERATED; i++) {
    const name = `gen-${String(i).padStart(3, '0')}`;
    await put(
      root,
      `${name}/SKILL.md`,
      `---\nname: ${name}\ndescription: Generated skill ${i}.\n---\n\n# ${name}\n`,
    );
    await put(root, `${name}/references/notes.md`, `notes of ${name}\n`);
  }
  await put(root, 'full-fm/SKILL.md', FULL_SKILL_MD);
  await put(root, 'full-fm/references/guide.md', '# Guide\n\nÜnïcödé text, and a second line.\n');
  await put(root, 'full-fm/references/forms guide.md', 'spaces in the name\n');
  await put(root, 'full-fm/assets/logo.png', PNG);
  await put(root, 'full-fm/.secret', 'a dotfile: never served\n');
  await put(root, 'full-fm/node_modules/dep/index.js', 'vendored: never served\n');
  await put(
    root,
    'big-files/SKILL.md',
    '---\nname: big-files\ndescription: Files over the read caps.\n---\n\n# Big\n',
  );
  await put(root, 'big-files/references/huge.md', `${'a line of text\n'.repeat(400)}`);
  await put(root, 'big-files/assets/huge.bin', Buffer.alloc(MAX_BINARY + 10, 0));
  return root;
}

// resources/read and skills/get name their URI in the Mcp-Name header too (2026-07-28).
const modernHeaders = (method: string, token: string, name: unknown) => ({
  'mcp-protocol-version': MODERN,
  'mcp-method': method,
  authorization: `Bearer ${token}`,
  ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
});

/** One raw 2026-07-28 request; returns the JSON-RPC response. */
async function raw(
  gw: TestGateway,
  method: string,
  params: Record<string, unknown>,
  token = env.ALL_TOKEN,
): Promise<Record<string, unknown>> {
  const response = await post(
    gw.url,
    { jsonrpc: '2.0', id: 1, method, params: { _meta: meta, ...params } },
    modernHeaders(method, token, params.uri),
  );
  const [message] = await messagesOf(response);
  if (message === undefined) throw new Error(`no answer to ${method} (HTTP ${response.status})`);
  return message;
}

const errorOf = (message: Record<string, unknown>) => message.error as { code: number; message: string };

describe('the Skills extension (io.modelcontextprotocol/skills)', () => {
  let root: string;
  let gw: TestGateway;
  beforeAll(async () => {
    root = await makeRoot();
    gw = await startTestGateway(
      {
        skills: { roots: [root], prompts: true },
        resources: { max_text_bytes: MAX_TEXT, max_binary_bytes: MAX_BINARY },
        auth: {
          tokens: [
            { name: 'all', token_env: 'ALL_TOKEN', skills: ['*'] },
            { name: 'gen', token_env: 'GEN_TOKEN', skills: ['gen-*'] },
          ],
        },
      },
      { ...process.env, ...env },
    );
  });
  afterAll(async () => {
    await gw.close();
    await rm(root, { recursive: true, force: true });
  });

  const withClient = async <T>(
    options: { era: 'modern' | 'legacy'; token?: string },
    body: (c: V2TestClient, skills: SkillsClient) => Promise<T>,
  ): Promise<T> => {
    const c = await connectV2(gw.url, { era: options.era, token: options.token ?? env.ALL_TOKEN });
    try {
      return await body(c, new SkillsClient(c.client));
    } finally {
      await c.close();
    }
  };

  it('declares the extension with directoryRead (resources/directory/read), and resources', async () => {
    await withClient({ era: 'modern' }, async (c, skills) => {
      expect(skills.supported).toBe(true);
      expect(skills.directoryRead).toBe(true);
      const capabilities = c.client.getServerCapabilities();
      expect(capabilities?.extensions?.['io.modelcontextprotocol/skills']).toEqual({ directoryRead: true });
      expect(capabilities?.resources).toBeDefined();
      expect(capabilities?.tools).toBeDefined();
    });
  });

  it('lists every skill over several pages, each entry whole, sorted by URI', async () => {
    await withClient({ era: 'modern' }, async (_c, skills) => {
      const listing = await skills.list();
      expect(listing.invalid).toEqual([]);
      const uris = listing.skills.map((s) => s.uri);
      expect(uris).toHaveLength(GENERATED + 2);
      expect(new Set(uris).size).toBe(uris.length);
      expect(uris).toEqual([...uris].sort());
      expect(uris).toContain('skill://full-fm/SKILL.md');
      expect(listing.ttlMs).toBe(60_000);
      expect(listing.cacheScope).toBe('public');
    });
    const first = (await raw(gw, 'skills/list', {})).result as {
      skills: unknown[];
      nextCursor?: string;
      resultType: string;
    };
    expect(first.resultType).toBe('complete');
    expect(first.skills).toHaveLength(100);
    expect(typeof first.nextCursor).toBe('string');
    const second = (await raw(gw, 'skills/list', { cursor: first.nextCursor })).result as {
      skills: unknown[];
      nextCursor?: string;
    };
    expect(second.skills).toHaveLength(GENERATED + 2 - 100);
    expect(second.nextCursor).toBeUndefined();
    const bad = await raw(gw, 'skills/list', { cursor: 'not-a-cursor' });
    expect(errorOf(bad).code).toBe(-32602);
  });

  it('publishes the frontmatter verbatim: license, metadata, allowed-tools and an unknown key', async () => {
    await withClient({ era: 'modern' }, async (_c, skills) => {
      const { skill } = await skills.get('skill://full-fm/SKILL.md');
      expect(skill.frontmatter).toEqual(FULL_FRONTMATTER);
      expect(Object.keys(skill.frontmatter)).toEqual(Object.keys(FULL_FRONTMATTER));
      const listed = (await skills.list()).skills.find((s) => s.uri === skill.uri);
      expect(listed).toEqual(skill);
      // The SKILL.md read back parses to the same frontmatter (the client checks it field by field).
      const file = await skills.read(skill);
      expect(file.verified).toBe(true);
      expect(file.frontmatter).toEqual(FULL_FRONTMATTER);
      expect(file.body).toContain('# Full frontmatter');
    });
  });

  it('publishes the digest and size of every served file, equal to the bytes on disk', async () => {
    await withClient({ era: 'modern' }, async (_c, skills) => {
      const { skill } = await skills.get('skill://full-fm/SKILL.md');
      if (skill.resources === 'dynamic') throw new Error('expected a manifest');
      expect(skill.resources.map((r) => r.uri)).toEqual([
        'skill://full-fm/SKILL.md',
        'skill://full-fm/assets/logo.png',
        'skill://full-fm/references/forms%20guide.md',
        'skill://full-fm/references/guide.md',
      ]);
      const onDisk: Record<string, string> = {
        'skill://full-fm/SKILL.md': 'SKILL.md',
        'skill://full-fm/assets/logo.png': 'assets/logo.png',
        'skill://full-fm/references/forms%20guide.md': 'references/forms guide.md',
        'skill://full-fm/references/guide.md': 'references/guide.md',
      };
      for (const resource of skill.resources) {
        const bytes = await readFile(join(root, 'full-fm', onDisk[resource.uri] ?? ''));
        expect(resource.digest).toBe(sha256(bytes));
        expect(resource.size).toBe(bytes.byteLength);
        // The host's check: every file read verifies against the entry.
        const read = await skills.read(skill, resource.uri);
        expect(read.verified).toBe(true);
        expect(Buffer.from(read.bytes).equals(bytes)).toBe(true);
      }
    });
  });

  it('reads text as text and binary as a base64 blob with its MIME type', async () => {
    const text = (await raw(gw, 'resources/read', { uri: 'skill://full-fm/references/guide.md' })).result as {
      contents: Array<Record<string, unknown>>;
      ttlMs: number;
      cacheScope: string;
    };
    expect(text.contents).toEqual([
      {
        uri: 'skill://full-fm/references/guide.md',
        mimeType: 'text/markdown',
        text: '# Guide\n\nÜnïcödé text, and a second line.\n',
      },
    ]);
    expect(text.ttlMs).toBe(60_000);
    expect(text.cacheScope).toBe('public');
    const blob = (await raw(gw, 'resources/read', { uri: 'skill://full-fm/assets/logo.png' })).result as {
      contents: Array<Record<string, unknown>>;
    };
    expect(blob.contents).toEqual([
      { uri: 'skill://full-fm/assets/logo.png', mimeType: 'image/png', blob: PNG.toString('base64') },
    ]);
  });

  it('refuses a file over the read caps instead of cutting it', async () => {
    for (const path of ['references/huge.md', 'assets/huge.bin']) {
      const uri = `skill://big-files/${path}`;
      const answer = await raw(gw, 'resources/read', { uri });
      expect(answer.result).toBeUndefined();
      expect(errorOf(answer).code).toBe(-32603);
      expect(errorOf(answer).message).toContain('over the');
    }
    // Both are still listed with their digests: a host learns the size before it reads.
    const { skill } = (await raw(gw, 'skills/get', { uri: 'skill://big-files/SKILL.md' })).result as {
      skill: { resources: Array<{ uri: string; size: number }> };
    };
    expect(skill.resources.find((r) => r.uri.endsWith('huge.md'))?.size).toBe(15 * 400);
  });

  it('answers traversal, absolute paths, other spellings and excluded files like unknown resources', async () => {
    const attempts = [
      'skill://full-fm/../gen-001/SKILL.md',
      'skill://full-fm/references/../../../../etc/passwd',
      'skill://full-fm/%2E%2E/%2E%2E/etc/passwd',
      'skill://full-fm/references/%2e%2e%2f%2e%2e%2fetc%2fpasswd',
      'skill:///etc/passwd',
      'skill://etc/passwd',
      `skill://full-fm/${join(root, 'full-fm', 'SKILL.md')}`,
      'file:///etc/passwd',
      'skill://full-fm/.secret',
      'skill://full-fm/node_modules/dep/index.js',
      'skill://FULL-FM/SKILL.md',
      'skill://full-fm/references',
      'skill://full-fm',
    ];
    for (const uri of attempts) {
      const answer = await raw(gw, 'resources/read', { uri });
      expect(answer.result, uri).toBeUndefined();
      expect(errorOf(answer).code, uri).toBe(-32602);
    }
  });

  it('parses a URI as a URL first, as hosts do: dot segments and spellings stay inside the skill', async () => {
    const served = async (uri: string) =>
      ((await raw(gw, 'resources/read', { uri })).result as { contents: Array<{ uri: string }> }).contents[0]
        ?.uri;
    expect(await served('skill://full-fm/references/forms guide.md')).toBe(
      'skill://full-fm/references/forms%20guide.md',
    );
    expect(await served('skill://full-fm/references/../SKILL.md')).toBe('skill://full-fm/SKILL.md');
    // `..` never climbs out of the authority (the skill name): this names full-fm's own gen-001/SKILL.md.
    const outside = await raw(gw, 'resources/read', { uri: 'skill://full-fm/../../gen-001/SKILL.md' });
    expect(errorOf(outside).code).toBe(-32602);
  });

  it("answers another principal's skill exactly like a nonexistent one", async () => {
    const shape = (message: Record<string, unknown>, uri: string) => {
      const error = errorOf(message);
      return { code: error.code, message: error.message.replace(uri, '<uri>') };
    };
    const hidden = 'skill://full-fm/SKILL.md';
    const missing = 'skill://no-such-skill/SKILL.md';
    for (const method of ['skills/get', 'resources/read']) {
      const forbidden = await raw(gw, method, { uri: hidden }, env.GEN_TOKEN);
      const nonexistent = await raw(gw, method, { uri: missing }, env.GEN_TOKEN);
      expect(forbidden.result).toBeUndefined();
      expect(shape(forbidden, hidden)).toEqual(shape(nonexistent, missing));
      expect(errorOf(forbidden).code).toBe(-32602);
    }
    await withClient({ era: 'modern', token: env.GEN_TOKEN }, async (c, skills) => {
      const listing = await skills.list();
      expect(listing.skills).toHaveLength(GENERATED);
      expect(listing.skills.every((s) => s.uri.startsWith('skill://gen-'))).toBe(true);
      expect(listing.cacheScope).toBe('private');
      const resources = await c.client.listResources();
      expect(resources.resources.map((r) => r.uri)).not.toContain(hidden);
      expect(resources.resources).toHaveLength(GENERATED);
    });
    // The other token still sees it.
    expect((await raw(gw, 'skills/get', { uri: hidden })).result).toBeDefined();
  });

  it('serves 2025-era sessions too (no cache fields there)', async () => {
    await withClient({ era: 'legacy' }, async (c, skills) => {
      expect(c.client.getProtocolEra()).toBe('legacy');
      expect(skills.supported).toBe(true);
      const listing = await skills.list();
      expect(listing.skills).toHaveLength(GENERATED + 2);
      const entry = listing.skills.find((s) => s.uri === 'skill://full-fm/SKILL.md');
      if (entry === undefined) throw new Error('full-fm not listed');
      const file = await skills.read(entry, 'assets/logo.png');
      expect(file.verified).toBe(true);
      expect(file.mimeType).toBe('image/png');
      const resources = await c.client.listResources();
      expect(resources.resources.find((r) => r.uri === entry.uri)).toMatchObject({
        name: 'full-fm',
        description: FULL_FRONTMATTER.description,
        mimeType: 'text/markdown',
      });
    });
    await withClient({ era: 'legacy', token: env.GEN_TOKEN }, async (_c, skills) => {
      await expect(skills.get('skill://full-fm/SKILL.md')).rejects.toThrow(/No skill is served/);
    });
  });

  it('offers one prompt per allowed skill: the SKILL.md body without frontmatter', async () => {
    await withClient({ era: 'modern' }, async (c) => {
      const { prompts } = await c.client.listPrompts();
      expect(prompts).toHaveLength(GENERATED + 2);
      expect(prompts.find((p) => p.name === 'full-fm')).toEqual({
        name: 'full-fm',
        description: FULL_FRONTMATTER.description,
      });
      const prompt = await c.client.getPrompt({ name: 'full-fm' });
      expect(prompt.messages).toEqual([
        {
          role: 'user',
          content: { type: 'text', text: '# Full frontmatter\n\nRead `references/guide.md` first.' },
        },
      ]);
    });
    await withClient({ era: 'legacy', token: env.GEN_TOKEN }, async (c) => {
      const { prompts } = await c.client.listPrompts();
      expect(prompts.map((p) => p.name)).not.toContain('full-fm');
      expect(prompts).toHaveLength(GENERATED);
      const hidden = c.client.getPrompt({ name: 'full-fm' });
      const missing = c.client.getPrompt({ name: 'no-such-prompt' });
      await expect(hidden).rejects.toThrow('Prompt full-fm not found');
      await expect(missing).rejects.toThrow('Prompt no-such-prompt not found');
    });
  });

  it('changes the digest of a changed file on reload, and tells listeners', async () => {
    const guide = join(root, 'full-fm', 'references', 'guide.md');
    const uri = 'skill://full-fm/references/guide.md';
    const modern = await connectV2(gw.url, { era: 'modern', token: env.ALL_TOKEN });
    const legacy = await connectV2(gw.url, { era: 'legacy', token: env.ALL_TOKEN });
    const legacyGen = await connectV2(gw.url, { era: 'legacy', token: env.GEN_TOKEN });
    const heard = { modern: 0, legacy: 0, legacyGen: 0 };
    modern.client.setNotificationHandler('notifications/resources/list_changed', async () => {
      heard.modern += 1;
    });
    legacy.client.setNotificationHandler('notifications/resources/list_changed', async () => {
      heard.legacy += 1;
    });
    legacyGen.client.setNotificationHandler('notifications/resources/list_changed', async () => {
      heard.legacyGen += 1;
    });
    const original = await readFile(guide);
    try {
      const subscription = await modern.client.listen({ resourcesListChanged: true });
      const skills = new SkillsClient(modern.client);
      const before = (await skills.get('skill://full-fm/SKILL.md')).skill;
      const digestOf = (skill: typeof before) =>
        skill.resources === 'dynamic' ? undefined : skill.resources.find((r) => r.uri === uri)?.digest;
      expect(digestOf(before)).toBe(sha256(original));
      // One byte changes; sizes stay equal, so only the digest can tell.
      const changed = Buffer.from(original);
      changed[2] = 'H'.charCodeAt(0);
      await writeFile(guide, changed);
      // Until the reload, the published digest no longer matches: the read is refused, not served stale.
      const stale = await raw(gw, 'resources/read', { uri });
      expect(errorOf(stale).message).toContain('changed since');
      await gw.gateway.catalogs.reload();
      const after = (await skills.get('skill://full-fm/SKILL.md')).skill;
      expect(digestOf(after)).toBe(sha256(changed));
      expect(digestOf(after)).not.toBe(digestOf(before));
      // A host holding the old entry refuses the new bytes; with the new entry they verify.
      await expect(skills.read(before, 'references/guide.md')).rejects.toBeInstanceOf(SkillVerificationError);
      expect((await skills.read(after, 'references/guide.md')).verified).toBe(true);
      await waitFor(() => heard.modern >= 1 && heard.legacy >= 1, { what: 'resources/list_changed' });
      // The gen principal cannot see full-fm: nothing it may use changed.
      expect(heard.legacyGen).toBe(0);
      await subscription.close();
    } finally {
      await writeFile(guide, original);
      await gw.gateway.catalogs.reload();
      await modern.close();
      await legacy.close();
      await legacyGen.close();
    }
  });
  it('publishes a skill added on reload as an entry and a prompt, and tells only who may use it', async () => {
    const all = await connectV2(gw.url, { era: 'legacy', token: env.ALL_TOKEN });
    const gen = await connectV2(gw.url, { era: 'legacy', token: env.GEN_TOKEN });
    const modern = await connectV2(gw.url, { era: 'modern', token: env.ALL_TOKEN });
    const heard = { allPrompts: 0, allResources: 0, genPrompts: 0, genResources: 0, modernPrompts: 0 };
    all.client.setNotificationHandler('notifications/prompts/list_changed', async () => {
      heard.allPrompts += 1;
    });
    all.client.setNotificationHandler('notifications/resources/list_changed', async () => {
      heard.allResources += 1;
    });
    gen.client.setNotificationHandler('notifications/prompts/list_changed', async () => {
      heard.genPrompts += 1;
    });
    gen.client.setNotificationHandler('notifications/resources/list_changed', async () => {
      heard.genResources += 1;
    });
    modern.client.setNotificationHandler('notifications/prompts/list_changed', async () => {
      heard.modernPrompts += 1;
    });
    try {
      const subscription = await modern.client.listen({ promptsListChanged: true });
      await put(
        root,
        'late-skill/SKILL.md',
        '---\nname: late-skill\ndescription: Added late.\n---\n\n# Late\n',
      );
      await gw.gateway.catalogs.reload();
      await waitFor(() => heard.allPrompts >= 1 && heard.allResources >= 1 && heard.modernPrompts >= 1, {
        what: 'prompts and resources list_changed',
      });
      const skills = new SkillsClient(all.client);
      expect((await skills.list()).skills.map((s) => s.uri)).toContain('skill://late-skill/SKILL.md');
      expect((await all.client.getPrompt({ name: 'late-skill' })).description).toBe('Added late.');
      // The gen principal may not use late-skill: nothing it sees changed.
      expect(heard.genPrompts + heard.genResources).toBe(0);
      await subscription.close();
    } finally {
      await rm(join(root, 'late-skill'), { recursive: true, force: true });
      await gw.gateway.catalogs.reload();
      await all.close();
      await gen.close();
      await modern.close();
    }
  });
});

describe('the modern skills/list hot path', () => {
  let root: string;
  let gw: TestGateway;
  const logLines: string[] = [];
  beforeAll(async () => {
    root = await makeRoot();
    gw = await startTestGateway(
      { skills: { roots: [root] }, resources: { max_text_bytes: MAX_TEXT, max_binary_bytes: MAX_BINARY } },
      process.env,
      logLines,
    );
  });
  afterAll(async () => {
    await gw.close();
    await rm(root, { recursive: true, force: true });
  });

  it("answers exactly what the SDK's path answers", async () => {
    const list = async (params: Record<string, unknown>, headers: Record<string, string> = {}) => {
      const response = await post(
        gw.url,
        { jsonrpc: '2.0', id: 'same', method: 'skills/list', params: { _meta: meta, ...params } },
        { 'mcp-protocol-version': MODERN, 'mcp-method': 'skills/list', ...headers },
      );
      expect(response.status).toBe(200);
      return response.json();
    };
    type Page = { result: { skills: unknown[]; nextCursor?: string } };
    // Every page: the rendered one, and the SDK's (an extra, ignored parameter takes the SDK's path).
    let cursor: string | undefined;
    let pages = 0;
    do {
      const params = cursor === undefined ? {} : { cursor };
      const fast = (await list(params)) as Page;
      expect(fast).toEqual(await list({ ...params, extra: true }));
      expect(fast.result.skills.length).toBeGreaterThan(0);
      cursor = fast.result.nextCursor;
      pages += 1;
    } while (cursor !== undefined);
    expect(pages).toBe(2);
    // A cursor that starts mid-page (valid, but not one a page ended with) is answered by the SDK's path.
    const midPage = Buffer.from('after:skill://gen-004/SKILL.md').toString('base64url');
    const mid = (await list({ cursor: midPage })) as Page;
    expect(mid).toEqual(await list({ cursor: midPage, extra: true }));
    expect(mid.result.skills).toHaveLength(100);
  });

  it('audits every skill resource read with its principal, URI and outcome', async () => {
    const read = (uri: string) =>
      post(
        gw.url,
        { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { _meta: meta, uri } },
        { 'mcp-protocol-version': MODERN, 'mcp-method': 'resources/read', 'mcp-name': uri },
      ).then((response) => response.text());
    await read('skill://full-fm/SKILL.md');
    await read('skill://full-fm/.secret');
    await read('skill://big-files/assets/huge.bin');
    const audits = logLines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.audit === 'resource_read')
      .map(({ principal, uri, outcome }) => ({ principal, uri, outcome }));
    expect(audits).toEqual([
      { principal: 'anonymous', uri: 'skill://full-fm/SKILL.md', outcome: 'ok' },
      { principal: 'anonymous', uri: 'skill://full-fm/.secret', outcome: 'not_found' },
      { principal: 'anonymous', uri: 'skill://big-files/assets/huge.bin', outcome: 'too_large' },
    ]);
  });

  it('serves no prompts unless skills.prompts is on', async () => {
    const c = await connectV2(gw.url, { era: 'modern' });
    try {
      expect(c.client.getServerCapabilities()?.prompts).toBeUndefined();
      expect(c.client.getServerCapabilities()?.extensions?.['io.modelcontextprotocol/skills']).toEqual({
        directoryRead: true,
      });
    } finally {
      await c.close();
    }
    const answer = await post(
      gw.url,
      { jsonrpc: '2.0', id: 1, method: 'prompts/list', params: { _meta: meta } },
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'prompts/list' },
    );
    const [message] = await messagesOf(answer);
    expect(message?.error).toMatchObject({ code: -32601 });
  });
});

describe('a host loading the bundled examples', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ skills: { roots: [EXAMPLES_ROOT] } });
  });
  afterAll(async () => gw.close());

  it('lists every skill, gets each, and reads and verifies every file of every skill', async () => {
    const c = await connectV2(gw.url, { era: 'modern' });
    try {
      const skills = new SkillsClient(c.client);
      const { skills: entries, invalid } = await skills.list();
      expect(invalid).toEqual([]);
      expect(entries.length).toBeGreaterThanOrEqual(7);
      let files = 0;
      for (const entry of entries) {
        expect((await skills.get(entry.uri)).skill).toEqual(entry);
        if (entry.resources === 'dynamic') throw new Error(`${entry.uri} has no manifest`);
        for (const resource of entry.resources) {
          const file = await skills.read(entry, resource.uri);
          expect(file.verified, resource.uri).toBe(true);
          // skill://<name>/<path>: the skill's folder (named like the skill), then the decoded segments.
          const url = new URL(resource.uri);
          const segments = url.pathname.slice(1).split('/').map(decodeURIComponent);
          const onDisk = await readFile(join(EXAMPLES_ROOT, url.host, ...segments));
          expect(sha256(onDisk), resource.uri).toBe(resource.digest);
          files += 1;
        }
      }
      expect(files).toBeGreaterThan(entries.length);
    } finally {
      await c.close();
    }
  });
});
