import { parseConfig } from '@skillgate/config';
import { describe, expect, it } from 'vitest';
import { createAccessPolicy } from '../../../src/auth/accessPolicy.js';
import { catalogSettings } from '../../../src/compose/catalogSettings.js';
import { buildCatalog } from '../../../src/core/catalogSource.js';
import { EXAMPLES_ROOT, REPO_ROOT } from '../../helpers/testGateway.js';

describe('views are cached per grant set, not per subject', () => {
  it('gives OAuth principals with the same skills one shared allowed set, so caches stay bounded', async () => {
    const catalog = await buildCatalog(
      catalogSettings(parseConfig({ skills: { roots: [EXAMPLES_ROOT] } }, { baseDir: REPO_ROOT })),
    );
    const policy = createAccessPolicy({ tokens: [], allowAnonymous: false, anonymousSkills: [] });
    const subjects = Array.from({ length: 50 }, (_, i) => ({
      id: `oauth:0123abcd:0123456789ab:user-${i}`,
      name: `user-${i}`,
      skills: ['text-*'],
    }));
    const sets = new Set(subjects.map((p) => policy.allowedSkills(p, catalog)));
    expect(sets.size).toBe(1);
    expect([...([...sets][0] ?? [])]).toEqual(['text-stats']);
    const other = policy.allowedSkills(
      { id: 'oauth:0123abcd:ba9876543210:user-0', name: 'user-0', skills: ['log-*'] },
      catalog,
    );
    expect([...(other ?? [])]).toEqual(['log-triage']);
  });
});
