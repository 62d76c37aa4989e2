import { readFile, realpath, rename, symlink } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { createTempSkills, skillMd, type TempSkills } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectClient,
  startTestGateway,
  type TestClient,
  type TestGateway,
  textOf,
} from '../helpers/testGateway.js';
import { connectV2, type V2TestClient } from '../helpers/v2Client.js';

// Regression tests named after the attack of issue 17 item 1, "a read that leaves its skill": after the
// catalog is built, someone who can write inside one skill folder renames a *parent folder* of a served
// file and puts a symlink in its place. The per-file read tools, read_skill_file, resources/read and the
// run tools must then refuse (never serve or run what the link leads to), while a healthy skill in the same
// root keeps being served. Every case runs in both sandbox modes.

const SECRET = 'SECRET: bytes outside the skill\n';
const HOST_PASSWD = /^root:.*:0:0:/m;

// Prints where it runs: the cwd and SKILL_DIR must be the skill folder's real path.
const WHERE_PY = 'import os\nprint(os.getcwd())\nprint(os.environ["SKILL_DIR"])\n';

/** Swaps the folder `path` for a symlink to `target`, as the attacker does: rename, then link. */
async function swapForSymlink(path: string, target: string): Promise<void> {
  await rename(path, `${path}.orig`);
  await symlink(target, path);
}

describe.each(['off', 'bwrap'] as const)('a parent folder swapped for a symlink (sandbox %s)', (sandbox) => {
  let temp: TempSkills;
  let work: string;
  let skill: string;
  let gw: TestGateway;
  let legacy: TestClient;
  let modern: V2TestClient;

  beforeAll(async () => {
    temp = await createTempSkills({}, 'skillgate-escape-');
    work = temp.work;
    const root = temp.root;
    const put = (path: string, content: string) => temp.put(relative(work, path), content);
    skill = join(root, 'victim');
    await put(join(skill, 'SKILL.md'), skillMd('victim'));
    await put(join(skill, 'references/notes/guide.md'), 'the guide\n');
    await put(join(skill, 'etc/passwd'), 'not the host passwd\n');
    await put(join(skill, 'scripts/hello.py'), 'print("hello from the skill")\n');
    await put(join(skill, 'scripts/where.py'), WHERE_PY);
    await put(join(root, 'healthy/SKILL.md'), skillMd('healthy'));
    await put(join(root, 'healthy/references/ok.md'), 'still fine\n');
    await put(join(root, 'healthy/scripts/ok.py'), 'print("ran fine")\n');
    // Outside every skill: what the symlinks lead to.
    await put(join(work, 'outside/guide.md'), SECRET);
    await put(join(work, 'outside-scripts/hello.py'), 'print("ESCAPED: ran outside the skill")\n');
    // The root is configured through a symlink, so the unresolved and the real paths differ.
    await symlink(root, join(work, 'root-link'));
    gw = await startTestGateway({
      skills: { roots: [join(work, 'root-link')], disclosure: 'eager' },
      scripts: { sandbox },
    });
    legacy = await connectClient(gw.url);
    modern = await connectV2(gw.url, { era: 'modern' });
  });

  afterAll(async () => {
    await legacy?.close();
    await modern?.close();
    await gw?.close();
    await temp.close();
  });

  const toolOf = (skillName: string, path: string, kind: 'read' | 'run'): string => {
    const names = gw.gateway.catalogs.current.skills.get(skillName)?.toolNames.get(path);
    const name = kind === 'read' ? names?.read : names?.run;
    if (name === undefined) throw new Error(`no ${kind} tool for ${skillName}/${path}`);
    return name;
  };

  /** Every way a client reads a file: the per-file tool, read_skill_file and resources/read. */
  async function readAllWays(
    skillName: string,
    path: string,
  ): Promise<{ texts: string[]; failed: boolean[] }> {
    const perFile = await legacy.client.callTool({ name: toolOf(skillName, path, 'read'), arguments: {} });
    const universal = await modern.client.callTool({
      name: 'read_skill_file',
      arguments: { skill: skillName, path },
    });
    let resource: string;
    let resourceFailed = false;
    try {
      const read = await legacy.client.readResource({ uri: `skill://${skillName}/${path}` });
      resource = JSON.stringify(read);
    } catch (error) {
      resource = String(error);
      resourceFailed = true;
    }
    return {
      texts: [textOf(perFile), textOf(universal), resource],
      failed: [perFile.isError === true, universal.isError === true, resourceFailed],
    };
  }

  async function expectHealthy(): Promise<void> {
    const read = await readAllWays('healthy', 'references/ok.md');
    expect(read.failed).toEqual([false, false, false]);
    for (const text of read.texts) expect(text).toContain('still fine');
    const run = await legacy.client.callTool({
      name: toolOf('healthy', 'scripts/ok.py', 'run'),
      arguments: {},
    });
    expect(run.isError).toBeFalsy();
    expect(textOf(run)).toContain('ran fine');
  }

  it("a script runs in the skill folder's real path, not in the path it was configured through", async () => {
    const configured = join(work, 'root-link', 'victim');
    const real = await realpath(configured);
    expect(real).not.toBe(configured);
    const run = await legacy.client.callTool({
      name: toolOf('victim', 'scripts/where.py', 'run'),
      arguments: {},
    });
    expect(run.isError).toBeFalsy();
    const [cwd, skillDir] = (run.structuredContent as { stdout: string }).stdout.split('\n');
    expect(cwd).toBe(real);
    expect(skillDir).toBe(real);
  });

  it('a references subfolder swapped for a symlink to a folder outside: every read refuses with "changed"', async () => {
    const before = await readAllWays('victim', 'references/notes/guide.md');
    expect(before.failed).toEqual([false, false, false]);
    await swapForSymlink(join(skill, 'references/notes'), join(work, 'outside'));
    const after = await readAllWays('victim', 'references/notes/guide.md');
    expect(after.failed).toEqual([true, true, true]);
    for (const text of after.texts) {
      expect(text).not.toContain('SECRET');
      expect(text).toContain('changed');
    }
    await expectHealthy();
  });

  it('a folder "etc" swapped for a symlink to /etc: etc/passwd never serves the host\'s /etc/passwd', async () => {
    expect(HOST_PASSWD.test(await readFile('/etc/passwd', 'utf8'))).toBe(true);
    await swapForSymlink(join(skill, 'etc'), '/etc');
    const after = await readAllWays('victim', 'etc/passwd');
    expect(after.failed).toEqual([true, true, true]);
    for (const text of after.texts) {
      expect(text).not.toMatch(HOST_PASSWD);
      expect(text).toContain('changed');
    }
    await expectHealthy();
  });

  it('scripts/ swapped for a symlink to a folder outside: the run tools refuse instead of running what it leads to', async () => {
    await swapForSymlink(join(skill, 'scripts'), join(work, 'outside-scripts'));
    const perFile = await legacy.client.callTool({
      name: toolOf('victim', 'scripts/hello.py', 'run'),
      arguments: {},
    });
    const universal = await modern.client.callTool({
      name: 'run_skill_script',
      arguments: { skill: 'victim', path: 'scripts/hello.py' },
    });
    for (const result of [perFile, universal]) {
      expect(result.isError).toBe(true);
      expect(textOf(result)).not.toContain('ESCAPED');
      expect(textOf(result)).toContain('changed on disk');
    }
    await expectHealthy();
  });
});
