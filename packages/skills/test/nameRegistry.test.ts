import { describe, expect, it } from 'vitest';
import type { Problem } from '../src/load/loadTypes.js';
import { createNameRegistry, type NameClaim } from '../src/names/nameRegistry.js';

const claim = (over: Partial<NameClaim> & Pick<NameClaim, 'sname' | 'role'>): NameClaim => ({
  identity: `${over.sname}\0${over.role}\0${over.sfile ?? ''}`,
  owner: `${over.role} tool of ${over.sname}`,
  file: `/skills/${over.sname}/SKILL.md`,
  skill: over.sname,
  ...over,
});

describe('createNameRegistry', () => {
  it('hands out the plain name when it is free and fits, and reports nothing', () => {
    const problems: Problem[] = [];
    const registry = createNameRegistry(48, problems);
    expect(registry.claim(claim({ sname: 'pdf', role: 'get_info' }))).toBe('skill_pdf_get_info');
    expect(registry.claim(claim({ sname: 'pdf', role: 'run_async', sfile: 'x_py' }))).toBe(
      'skill_pdf_run_async_x_py',
    );
    expect(problems).toEqual([]);
  });

  it('moves the second claimant of a name, keeping its role, and reports the clash with both owners', () => {
    const problems: Problem[] = [];
    const registry = createNameRegistry(48, problems);
    expect(registry.claim(claim({ sname: 'a', role: 'read', sfile: 'get_info' }))).toBe(
      'skill_a_read_get_info',
    );
    const moved = registry.claim(claim({ sname: 'a_read', role: 'get_info' }));
    expect(moved).toMatch(/^skill_a_read_[0-9a-f]{6}_get_info$/);
    expect(problems).toEqual([
      expect.objectContaining({
        severity: 'warning',
        code: 'TOOL_NAME_CLASH',
        field: moved,
        skill: 'a_read',
        reason: expect.stringMatching(/read tool of a.*get_info tool of a_read/),
      }),
    ]);
  });

  it('never hands out a reserved name', () => {
    const registry = createNameRegistry(48, []);
    registry.reserve('skill_x_read_y', 'shared tool');
    expect(registry.claim(claim({ sname: 'x', role: 'read', sfile: 'y' }))).toMatch(
      /^skill_x_read_y_[0-9a-f]{6}$/,
    );
  });

  it('keeps looking when the first renamed name is taken too', () => {
    const registry = createNameRegistry(48, []);
    const first = claim({ sname: 'x', role: 'read', sfile: 'y' });
    expect(registry.claim(first)).toBe('skill_x_read_y');
    const second = registry.claim(first);
    const third = registry.claim(first);
    expect(new Set(['skill_x_read_y', second, third]).size).toBe(3);
    for (const name of [second, third]) expect(name).toMatch(/^skill_x_read_y_[0-9a-f]{6}$/);
  });

  it('reports a shortened name as truncated, naming the full name', () => {
    const problems: Problem[] = [];
    const registry = createNameRegistry(32, problems);
    const name = registry.claim(claim({ sname: 'a-rather-long-skill-name', role: 'get_info' }));
    expect(name.length).toBeLessThanOrEqual(32);
    expect(name).toMatch(/^skill_a-rather_[0-9a-f]{6}_get_info$/);
    expect(problems).toEqual([
      expect.objectContaining({
        code: 'TOOL_NAME_TRUNCATED',
        field: name,
        reason: 'skill_a-rather-long-skill-name_get_info is longer than 32 chars',
      }),
    ]);
  });
});
