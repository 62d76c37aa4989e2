// The gateway's folders in layers, written once (docs/architecture.md, "Layers"): a folder may import only
// folders of lower layers. `pnpm layers` writes the import rules that hold them into
// biome.json's overrides (biome's noRestrictedImports, run by `pnpm lint` in CI); a test checks biome.json
// is what this table gives (apps/gateway/test/internals/rules/layers.test.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Lowest first. */
export const LAYERS: readonly (readonly string[])[] = [
  ['errors', 'observability', 'core'],
  ['auth'],
  ['disclosure'],
  ['tools'],
  ['skillsExtension'],
  ['mcp', 'direct'],
  ['legacy', 'modern'],
  ['reload', 'upstreams', 'operator', 'connect'],
  ['http'],
  ['compose'],
  ['cli'],
];

/** Only these read the config (everyone else takes typed options). */
const CONFIG_READERS = ['compose', 'cli'];

/** biome.json's `overrides`: one per folder. */
export function layerOverrides(): unknown[] {
  const level = new Map(LAYERS.flatMap((folders, n) => folders.map((folder) => [folder, n])));
  return [...level].map(([folder, n]) => {
    const higher = [...level]
      .filter(([other, m]) => other !== folder && m >= n)
      .map(([other]) => `../${other}/*`);
    // The composition root (createGateway.ts) is used only by the CLI; the entry files by nobody.
    const roots = [...(folder === 'cli' ? [] : ['../createGateway.js']), '../cli.js', '../index.js'];
    const patterns: { group: string[]; importNamePattern?: string; message: string }[] = [
      {
        group: [...higher, ...roots],
        message: `${folder}/ may import only folders below it (docs/architecture.md, "Layers").`,
      },
    ];
    if (!CONFIG_READERS.includes(folder)) {
      patterns.push({
        group: ['@skillgate/config'],
        importNamePattern: '[A-Z][A-Za-z]*Config',
        message:
          'Only the composition root (compose/) and the CLI read the config; take typed options instead (docs/architecture.md).',
      });
    }
    return {
      includes: [`apps/gateway/src/${folder}/**`],
      linter: { rules: { style: { noRestrictedImports: { level: 'error', options: { patterns } } } } },
    };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const path = join(import.meta.dirname, '../biome.json');
  const biome = JSON.parse(readFileSync(path, 'utf8'));
  biome.overrides = layerOverrides();
  writeFileSync(path, `${JSON.stringify(biome, null, 2)}\n`);
}
