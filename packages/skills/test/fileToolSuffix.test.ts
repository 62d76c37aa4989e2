import { describe, expect, it } from 'vitest';
import { fileToolSuffix } from '../src/index.js';

describe('fileToolSuffix', () => {
  it.each([
    ['scripts/build.sh', 'build_sh'],
    ['references/api/v2.md', 'api_v2_md'],
    ['assets/logo.png', 'logo_png'],
    ['notes.txt', 'notes_txt'],
    ['scripts/lib/helper.py', 'lib_helper_py'],
    ['scripts/scripts/x.sh', 'scripts_x_sh'],
    ['docs/scripts/x.sh', 'docs_scripts_x_sh'],
    ['Scripts/Build.SH', 'scripts_build_sh'],
    ['scripts/my script (v2).py', 'my_script_v2_py'],
    ['assets/icons/16x16.png', 'icons_16x16_png'],
    ['scripts/build_sh', 'build_sh'],
  ])('turns %j into %j', (path, expected) => {
    expect(fileToolSuffix(path)).toBe(expected);
  });

  it('hashes the whole path when nothing usable is left', () => {
    const first = fileToolSuffix('scripts/数据');
    const second = fileToolSuffix('assets/数据');
    expect(first).toMatch(/^[0-9a-f]{6}$/);
    expect(second).toMatch(/^[0-9a-f]{6}$/);
    expect(first).not.toBe(second);
  });
});
