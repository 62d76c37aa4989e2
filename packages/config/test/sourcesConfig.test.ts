import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../src/index.js';

const base = { baseDir: '/srv/gateway' };
const SHA = 'a'.repeat(64);

/** The paths of the issues a config is refused with (none when it parses). */
function refused(sources: unknown[]): string[] {
  try {
    parseConfig({ sources: { list: sources } }, base);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.issues.map((i) => i.path);
  }
}

describe('sources.list', () => {
  it('takes https, ssh, scp-like and file git URLs, and resolves lock_file and cache_dir against the config folder', () => {
    const config = parseConfig(
      {
        sources: {
          list: [
            { id: 'a', git: 'https://git.example.com/org/skills.git' },
            { id: 'b', git: 'ssh://git@git.example.com/org/skills.git' },
            { id: 'c', git: 'git@github.com:org/skills.git' },
            { id: 'd', git: 'file:///srv/skills.git' },
            { id: 'e', archive: 'https://example.com/s.tgz', sha256: SHA },
          ],
          cache_dir: './cache',
        },
      },
      base,
    );
    expect(config.sources.lock_file).toBe('/srv/gateway/skillgate.lock.yaml');
    expect(config.sources.cache_dir).toBe('/srv/gateway/cache');
  });

  it.each([
    ['plain http to another host (a token in the clear)', { id: 'a', git: 'http://git.example.com/x.git' }],
    ['credentials in the URL', { id: 'a', git: 'https://user:pw@git.example.com/x.git' }],
    ['an archive without sha256', { id: 'a', archive: 'https://example.com/s.tar.gz' }],
    [
      'an archive that is not .tar.gz, .tgz or .zip',
      { id: 'a', archive: 'https://example.com/s.rar', sha256: SHA },
    ],
    ['a path that climbs out', { id: 'a', git: 'https://git.example.com/x.git', path: '../etc' }],
    [
      'a ref beginning with - (option injection into git)',
      { id: 'a', git: 'file:///srv/x.git', ref: '--upload-pack=touch /tmp/x' },
    ],
    ['an scp-like URL beginning with - (option injection into git)', { id: 'a', git: '-oProxy@host:x.git' }],
    ['an id with capitals', { id: 'Team', git: 'https://git.example.com/x.git' }],
    [
      'both git and archive',
      { id: 'a', git: 'https://git.example.com/x.git', archive: 'https://e.com/a.zip', sha256: SHA },
    ],
  ])('refuses %s', (_what, source) => {
    expect(refused([source]).length).toBeGreaterThan(0);
  });

  it('refuses two sources with one id, naming the second', () => {
    expect(
      refused([
        { id: 'a', git: 'https://git.example.com/x.git' },
        { id: 'a', archive: 'https://example.com/s.zip', sha256: SHA },
      ]),
    ).toEqual(['sources.list[1].id']);
  });
});
