import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LAYERS, layerOverrides } from '../../../../../scripts/gateway-layers.js';
import { REPO_ROOT } from '../../helpers/testGateway.js';

describe('the layers of apps/gateway/src', () => {
  it('are held by biome.json exactly as scripts/gateway-layers.mjs writes them, for every folder', async () => {
    const biome = JSON.parse(await readFile(join(REPO_ROOT, 'biome.json'), 'utf8')) as { overrides: unknown };
    expect(biome.overrides).toEqual(layerOverrides());
    const folders = (await readdir(join(REPO_ROOT, 'apps/gateway/src'), { withFileTypes: true }))
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(LAYERS.flat().sort()).toEqual(folders.sort());
  });

  it('are the ones docs/architecture.md lists, lowest first', async () => {
    const doc = await readFile(join(REPO_ROOT, 'docs/architecture.md'), 'utf8');
    const rows = [...doc.matchAll(/^\| (\d+) \| ([^|]+) \|/gm)].map((m) =>
      (m[2] ?? '').split(',').map((folder) => folder.trim().replace(/`|\//g, '')),
    );
    expect(rows).toEqual(LAYERS);
  });
});
