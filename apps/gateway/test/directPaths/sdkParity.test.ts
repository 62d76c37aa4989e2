import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SDK_PARITY } from '../../src/direct/sdkParity.js';
import { REPO_ROOT } from '../helpers/testGateway.js';

const require = createRequire(join(REPO_ROOT, 'apps/gateway/package.json'));

/** The installed version of a package the gateway depends on. */
function installedVersion(name: string): string {
  const main = require.resolve(name);
  const root = main.slice(0, main.lastIndexOf(`/node_modules/${name}/`) + `/node_modules/${name}/`.length);
  return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
}

describe('the direct paths copy the SDK (src/direct/sdkParity.ts)', () => {
  it('were checked against the installed SDK versions: a new SDK needs the listed behaviours rechecked', () => {
    for (const [name, checked] of Object.entries(SDK_PARITY.checkedAgainst)) {
      expect(installedVersion(name), `${name}: recheck src/direct/sdkParity.ts, then move its version`).toBe(
        checked,
      );
    }
  });

  it('names a file of direct/ for every behaviour it copies', () => {
    for (const { file } of SDK_PARITY.behaviours) {
      expect(() => readFileSync(join(REPO_ROOT, 'apps/gateway/src', file)), file).not.toThrow();
    }
  });
});
