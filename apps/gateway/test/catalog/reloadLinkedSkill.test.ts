import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/testGateway.js';

// A skill linked into a watched root (a symlink to its folder elsewhere) is read where the link leads, so an
// edit there reloads it: the skill watcher (reload/skillWatcher.ts) does not follow links by itself and
// watches each link's folder too, and a link added later once the change that added it is seen.
let dir: string;
let gw: TestGateway;
const skillMd = (name: string, description: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\nBody.\n`;
const descriptionOf = (name: string) => gw.gateway.catalogs.current.skills.get(name)?.skill.description;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillgate-reload-linked-'));
  await mkdir(join(dir, 'root'));
  for (const name of ['linked', 'later']) {
    await mkdir(join(dir, 'elsewhere', name), { recursive: true });
    await writeFile(join(dir, 'elsewhere', name, 'SKILL.md'), skillMd(name, `The ${name} skill.`));
  }
  await symlink(join(dir, 'elsewhere/linked'), join(dir, 'root/linked'));
  gw = await startTestGateway({ skills: { roots: [join(dir, 'root')], watch: true, watch_debounce_ms: 50 } });
});
afterAll(async () => {
  await gw.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a skill linked into a watched root', () => {
  it('reloads when its SKILL.md is edited where the link leads', async () => {
    expect(descriptionOf('linked')).toBe('The linked skill.');
    await writeFile(join(dir, 'elsewhere/linked/SKILL.md'), skillMd('linked', 'Edited through the link.'));
    await waitFor(() => descriptionOf('linked') === 'Edited through the link.', {
      timeoutMs: 20_000,
      what: 'the edit of the linked skill',
    });
  });

  it('reloads a skill linked in later when it is edited', async () => {
    await symlink(join(dir, 'elsewhere/later'), join(dir, 'root/later'));
    await waitFor(() => descriptionOf('later') === 'The later skill.', {
      timeoutMs: 20_000,
      what: 'the new link',
    });
    // The link's folder is watched once the reload after the new link has looked at the links again.
    await waitFor(
      async () => {
        await writeFile(join(dir, 'elsewhere/later/SKILL.md'), skillMd('later', 'Edited later.'));
        return descriptionOf('later') === 'Edited later.';
      },
      { timeoutMs: 20_000, intervalMs: 300, what: 'the edit of the skill linked in later' },
    );
  });
});
