import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { globMatcher } from '../src/names/globMatcher.js';

// One glob dialect for every key (docs/configuration.md, "Conventions"): the skills library's globs (a source's
// skills, skills.pinned, a skill's upstream bindings) match as the gateway's token and grant globs do. The old
// matcher here knew only * and ?, so `pdf-{fill,merge}` pinned nothing while a token's skills took both.
const GATEWAY = (glob: string) => {
  const isMatch = picomatch(glob, { dot: true });
  return (name: string) => isMatch(name);
};
const NAMES = ['pdf-fill', 'pdf-merge', 'pdf-split', 'report', '.hidden', 'a.b', 'text-stats'];

describe('globMatcher', () => {
  it.each(['pdf-*', 'pdf-{fill,merge}', 'pdf-[fm]*', '!pdf-*', 'repor?', '*', '.*', 'a.b', 'text-stats'])(
    "%s takes the names the gateway's globs take",
    (glob) => {
      const matches = globMatcher(glob);
      expect(NAMES.filter(matches)).toEqual(NAMES.filter(GATEWAY(glob)));
    },
  );

  it('takes alternatives and classes', () => {
    expect(NAMES.filter(globMatcher('pdf-{fill,merge}'))).toEqual(['pdf-fill', 'pdf-merge']);
    expect(NAMES.filter(globMatcher('*'))).toEqual(NAMES);
  });
});
