import { createTempSkills, type TempSkills } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cliCommand.js';
import {
  connectClient,
  startTestGateway,
  type TestGateway,
  textOf,
  toolNames,
} from '../helpers/testGateway.js';

// A skill author (or a git source's) SKILL.md with YAML 1.1 tags: `yaml` resolves `!!binary` to a Buffer,
// `!!set` to a Set, `!!omap` to a Map and `!!timestamp` to a Date unless told not to. Freezing a Buffer
// throws, so one such skill used to stop the catalog from loading: `serve` failed to start and
// `validate` crashed with a stack trace, whatever the other skills were.
const TAGGED = `---
name: tagged
description: Tagged frontmatter.
license: !!binary aGVsbG8=
metadata: !!omap [owner: ops]
compatibility: !!timestamp 2001-12-14
extra: !!set {a, b}
---
# tagged
`;

describe('a SKILL.md with YAML 1.1 tags (!!binary, !!set, !!omap, !!timestamp)', () => {
  let temp: TempSkills;
  let gw: TestGateway;

  beforeAll(async () => {
    temp = await createTempSkills({ healthy: {} }, 'skillgate-tags-');
    await temp.put('root/tagged/SKILL.md', TAGGED);
    gw = await startTestGateway({ skills: { roots: [temp.root] } });
  });
  afterAll(async () => {
    await gw?.close();
    await temp?.close();
  });

  it('does not stop the gateway: every skill is served, the tagged one with its values as plain text', async () => {
    const client = await connectClient(gw.url);
    try {
      const names = await toolNames(client.client);
      expect(names).toEqual(expect.arrayContaining(['skill_healthy_get_info', 'skill_tagged_get_info']));
      const info = textOf(await client.client.callTool({ name: 'skill_tagged_get_info', arguments: {} }));
      expect(info).toContain('# tagged');
    } finally {
      await client.close();
    }
  });

  it('validate reports it and exits normally instead of crashing', async () => {
    const run = await runCli('validate', temp.root);
    expect(run.stderr).not.toContain('TypeError');
    expect(run.stdout).toContain('2 skills loaded');
    expect(run.code).toBe(0);
  });
});
