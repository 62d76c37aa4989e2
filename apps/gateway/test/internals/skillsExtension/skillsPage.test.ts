import { ProtocolError } from '@modelcontextprotocol/server';
import type { Skill } from '@modelcontextprotocol/server/ext/skills';
import { describe, expect, it } from 'vitest';
import { pageByUri, pageStartOf } from '../../../src/skillsExtension/skillsPage.js';

const entry = (name: string): Skill => ({
  uri: `skill://${name}/SKILL.md`,
  frontmatter: { name, description: name },
  resources: [],
});
const names = (skills: readonly Skill[]) => skills.map((s) => s.frontmatter.name);

describe('skillsPage', () => {
  const entries = ['a', 'b', 'c', 'd', 'e'].map(entry);

  it('pages through every entry once, with no cursor after the last page', () => {
    const first = pageByUri(entries, undefined, 2);
    expect(names(first.items)).toEqual(['a', 'b']);
    const second = pageByUri(entries, first.nextCursor, 2);
    expect(names(second.items)).toEqual(['c', 'd']);
    const third = pageByUri(entries, second.nextCursor, 2);
    expect(names(third.items)).toEqual(['e']);
    expect(third.nextCursor).toBeUndefined();
    expect(pageByUri(entries, undefined, 5).nextCursor).toBeUndefined();
  });

  it('resumes after the last URI it returned when the catalog changed between pages', () => {
    const first = pageByUri(entries, undefined, 2);
    // A reload added a skill before the cursor and removed the next one.
    const reloaded = ['a', 'aa', 'b', 'd', 'e'].map(entry);
    expect(names(pageByUri(reloaded, first.nextCursor, 2).items)).toEqual(['d', 'e']);
  });

  it('refuses a cursor it did not mint with -32602', () => {
    for (const cursor of ['', 'not-a-cursor', Buffer.from('skill://a/SKILL.md').toString('base64url')]) {
      let thrown: unknown;
      try {
        pageByUri(entries, cursor, 2);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, cursor).toBeInstanceOf(ProtocolError);
      expect((thrown as ProtocolError).code).toBe(-32602);
    }
  });

  it('finds where a page starts only on page boundaries, so only whole pages are rendered once', () => {
    const first = pageByUri(entries, undefined, 2);
    expect(pageStartOf(entries, undefined, 2)).toBe(0);
    expect(pageStartOf(entries, first.nextCursor, 2)).toBe(2);
    const midPage = Buffer.from('after:skill://a/SKILL.md').toString('base64url');
    expect(pageStartOf(entries, midPage, 2)).toBeUndefined();
    expect(pageStartOf(entries, 'not-a-cursor', 2)).toBeUndefined();
  });
});
