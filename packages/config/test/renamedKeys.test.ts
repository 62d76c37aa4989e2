import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/configError.js';
import { parseConfig, parseConfigNoting } from '../src/parseConfig.js';
import { RENAMED_KEYS } from '../src/renamedKeys.js';

const base = { baseDir: '/srv/gateway' };

function issuePaths(input: unknown): string[] {
  try {
    parseConfig(input, base);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((i) => i.path);
    throw error;
  }
  return [];
}

// docs/configuration.md, "Conventions": a config written before the renames loads unchanged, read as the new
// keys, and names each old key it used.
describe('renamed keys', () => {
  it('reads every old key as its new one and names it', () => {
    const { config, deprecations } = parseConfigNoting(
      {
        skills: {
          roots: ['./skills'],
          sources: [{ id: 'a', git: 'https://git.example.com/org/skills.git' }],
          lock_file: './locks/skillgate.lock.yaml',
          cache_dir: './cache',
          fetch_timeout_seconds: 30,
          max_source_bytes: 2048,
          max_source_files: 7,
          follow: { interval_seconds: 60 },
        },
        scripts: { default_timeout: 5, max_timeout: 10 },
      },
      base,
    );
    expect(config.sources).toEqual({
      list: [{ id: 'a', git: 'https://git.example.com/org/skills.git' }],
      lock_file: '/srv/gateway/locks/skillgate.lock.yaml',
      cache_dir: '/srv/gateway/cache',
      fetch_timeout_seconds: 30,
      max_bytes: 2048,
      max_files: 7,
      follow: { interval_seconds: 60 },
    });
    expect(config.skills.roots).toEqual(['/srv/gateway/skills']);
    expect(config.scripts).toMatchObject({ default_timeout_seconds: 5, max_timeout_seconds: 10 });
    expect(deprecations.map((d) => `${d.key} -> ${d.replacement}`).sort()).toEqual(
      RENAMED_KEYS.map((r) => `${r.from} -> ${r.to}`).sort(),
    );
  });

  it('names nothing for a config written with the new keys', () => {
    const { deprecations } = parseConfigNoting(
      { sources: { list: [] }, scripts: { default_timeout_seconds: 5 } },
      base,
    );
    expect(deprecations).toEqual([]);
  });

  it('refuses both names of one key, naming the old one', () => {
    expect(issuePaths({ scripts: { default_timeout: 5, default_timeout_seconds: 6 } })).toEqual([
      'scripts.default_timeout',
    ]);
    expect(issuePaths({ skills: { sources: [] }, sources: { list: [] } })).toEqual(['skills.sources']);
  });

  it('blames a bad value on the name it was written with', () => {
    expect(issuePaths({ scripts: { default_timeout: 600 } })).toEqual(['scripts.default_timeout']);
    expect(issuePaths({ skills: { sources: [{ id: 'a', git: 'http://example.com/x.git' }] } })).toEqual([
      'skills.sources[0].git',
    ]);
  });
});
