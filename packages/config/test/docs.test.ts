import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { configReference, loadConfig, renderConfigReference } from '../src/index.js';
import { RENAMED_KEYS } from '../src/renamedKeys.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '../../..');

describe('documentation kept equal to the schema', () => {
  it('docs/configuration.md is what the schema generates (run `pnpm docs:config` after changing it)', async () => {
    expect(await readFile(join(REPO, 'docs/configuration.md'), 'utf8')).toBe(renderConfigReference());
  });

  it('every ready-made config in configs/ loads', async () => {
    const files = (await readdir(join(REPO, 'configs'))).filter((f) => f.endsWith('.yaml'));
    expect(files.length).toBeGreaterThanOrEqual(3);
    for (const file of files) {
      const env = { SKILLGATE_TOKEN: 't', AGENT_A_TOKEN: 'a', AGENT_B_TOKEN: 'b', OPS_TOKEN: 'o' };
      const { config } = await loadConfig({ file: join(REPO, 'configs', file), env });
      expect(config.server.path, file).toBe('/mcp');
    }
  });

  it('every dotted config key named in the README and docs/ exists', async () => {
    // The generated reference is the source of the keys: it is not checked against itself.
    const pages = (await readdir(join(REPO, 'docs'))).filter(
      (f) => f.endsWith('.md') && f !== 'configuration.md',
    );
    const readme = (
      await Promise.all(
        [join(REPO, 'README.md'), ...pages.map((f) => join(REPO, 'docs', f))].map((f) => readFile(f, 'utf8')),
      )
    ).join('\n');
    // Renamed keys are still read (and their records name them).
    const known = new Set([...configReference().map((r) => r.key), ...RENAMED_KEYS.map((r) => r.from)]);
    const sections = new Set([...known].map((k) => k.split('.')[0]));
    const named = [...readme.matchAll(/`([a-z_]+\.[a-z_]+)`/g)]
      .map((m) => m[1] ?? '')
      .filter((k) => sections.has(k.split('.')[0]));
    expect(named.length).toBeGreaterThan(5);
    // A key, or a section of keys (`scripts.limits`).
    const exists = (key: string): boolean =>
      known.has(key) || [...known].some((k) => k.startsWith(`${key}.`));
    for (const key of named) expect(exists(key) || key.startsWith('auth.tokens'), key).toBe(true);
  });
});
