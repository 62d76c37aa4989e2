import { describe, expect, it } from 'vitest';
import { shortenToolName } from '../src/names/shortenToolName.js';

const HASH = 'abc123';

describe('shortenToolName', () => {
  it('keeps get_info at the end, after the hash, and cuts the skill name on a word boundary', () => {
    const name = shortenToolName(
      { sname: 'very-long-skill-name-that-goes-on-and-on-forever', role: 'get_info' },
      HASH,
      48,
    );
    expect(name).toBe('skill_very-long-skill-name-that_abc123_get_info');
    expect(name.length).toBeLessThanOrEqual(48);
  });

  it('keeps a short skill whole and gives the rest to the file, whose end it keeps', () => {
    const name = shortenToolName(
      { sname: 'notes', role: 'read', sfile: 'conventions_conventional-commits-and-semantic-versioning_md' },
      HASH,
      48,
    );
    expect(name).toBe('skill_notes_read_semantic-versioning_md_abc123');
    expect(name.length).toBeLessThanOrEqual(48);
  });

  it('keeps a short file whole and gives the rest to the skill', () => {
    const name = shortenToolName(
      { sname: 'a-skill-with-a-really-quite-long-name-indeed', role: 'run', sfile: 'go_sh' },
      HASH,
      48,
    );
    expect(name).toBe('skill_a-skill-with-a-really_run_go_sh_abc123');
    expect(name.length).toBeLessThanOrEqual(48);
  });

  it('splits the room when both parts are long', () => {
    const name = shortenToolName(
      { sname: 'data-pipeline-orchestrator', role: 'run_async', sfile: 'run-the-whole-pipeline-now_py' },
      HASH,
      48,
    );
    // The file is cut to `now_py` on a word boundary; the chars it saved go to the skill.
    expect(name).toBe('skill_data-pipeline_run_async_now_py_abc123');
    expect(name.length).toBeLessThanOrEqual(48);
  });

  it('fits the smallest allowed length (32) with some of each part', () => {
    const long = 'x'.repeat(60);
    expect(shortenToolName({ sname: long, role: 'get_info' }, HASH, 32)).toBe(
      `skill_${'x'.repeat(10)}_abc123_get_info`,
    );
    expect(shortenToolName({ sname: long, role: 'run_async', sfile: long }, HASH, 32)).toBe(
      'skill_xxxx_run_async_xxxx_abc123',
    );
    expect(shortenToolName({ sname: long, role: 'read', sfile: long }, HASH, 32)).toBe(
      'skill_xxxxxxx_read_xxxxxx_abc123',
    );
  });

  it('only appends the hash when both parts fit (a clash, not a long name)', () => {
    expect(shortenToolName({ sname: 'a', role: 'read', sfile: 'get_info' }, HASH, 48)).toBe(
      'skill_a_read_get_info_abc123',
    );
    expect(shortenToolName({ sname: 'a_read', role: 'get_info' }, HASH, 48)).toBe(
      'skill_a_read_abc123_get_info',
    );
  });

  it('never leaves a separator next to the marker or the hash', () => {
    const name = shortenToolName(
      { sname: 'abcdefgh-ijklmnop', role: 'read', sfile: 'ab_cdefghijklmnopqrstuvwxyz_md' },
      HASH,
      40,
    );
    expect(name).not.toMatch(/[_-]{2}/);
  });
});
