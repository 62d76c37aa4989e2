import type { Prompt, Resource } from '@modelcontextprotocol/server';
import type { Skill } from '@modelcontextprotocol/server/ext/skills';
import type { Catalog, SkillPrompt } from '@skillgate/skills';
import { type Principal, viewKeyOf } from '../auth/accessPolicy.js';
import { createCatalogMemo } from '../core/catalogMemo.js';
import { renderOnce } from '../core/renderedJson.js';
import type { DisclosurePolicy } from '../disclosure/disclosurePolicy.js';
import { skillDirectories } from './skillDirectories.js';

/** What one principal sees of one catalog through the Skills extension and prompts, computed once. */
export interface SkillsView {
  /** The published entries the principal may use, sorted by URI (code-unit order, the SDK's). */
  readonly entries: readonly Skill[];
  /** The same entries by their SKILL.md URI. */
  readonly byUri: ReadonlyMap<string, Skill>;
  /** What resources/list shows: each allowed skill's SKILL.md. */
  readonly listed: readonly Resource[];
  /** The prompts of the allowed skills, in catalog order, as prompts/list shows them, and by name. */
  readonly prompts: readonly Prompt[];
  readonly promptsByName: ReadonlyMap<string, SkillPrompt>;
  /** The folders of the published skills the principal may use, with their direct children (directory reads). */
  readonly directories: ReadonlyMap<string, readonly Resource[]>;
  /** Whether the principal may read files of this skill (published or not). */
  mayUse(skill: string): boolean;
}

const byUri = (a: Skill, b: Skill): number => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0);

/** A principal's Skills extension view of a catalog. */
export type SkillsViews = (catalog: Catalog, principal: Principal) => SkillsView;

/**
 * The Skills extension views of one disclosure policy (docs/skills-extension.md): the catalog's entries,
 * resources and prompts filtered by the principal's `skills` globs exactly as tools are, built once per
 * catalog and principal so that no request filters or sorts. The memo belongs to the views made here (one
 * per gateway or CLI run), never to the module: a second policy never reads the first one's views.
 */
export function createSkillsViews(disclosure: Pick<DisclosurePolicy, 'usableSkill'>): SkillsViews {
  // One view per (catalog, principal): a reload builds a new catalog, so views change atomically with it.
  const views = createCatalogMemo<SkillsView>();
  return (catalog, principal) =>
    views(catalog, viewKeyOf(principal), () => buildView(disclosure, catalog, principal));
}

function buildView(
  disclosure: Pick<DisclosurePolicy, 'usableSkill'>,
  catalog: Catalog,
  principal: Principal,
): SkillsView {
  const mayUse = (skill: string) => disclosure.usableSkill(catalog, principal, skill) !== undefined;
  // The library's entries are deep-frozen and in wire shape: shared, never copied.
  const entries = [...catalog.extension.entries]
    .filter(([skill]) => mayUse(skill))
    // Registered to be written as JSON once: skills/get answers with the entry itself (core/renderedJson.ts).
    .map(([, entry]) => renderOnce(entry as Skill))
    .sort(byUri);
  const prompts = [...catalog.prompts.values()].filter((prompt) => mayUse(prompt.skill));
  const view: SkillsView = Object.freeze({
    entries: Object.freeze(entries),
    byUri: new Map(entries.map((entry) => [entry.uri, entry])),
    listed: Object.freeze(
      entries.map((entry) =>
        Object.freeze({
          uri: entry.uri,
          name: entry.frontmatter.name,
          description: entry.frontmatter.description,
          mimeType: 'text/markdown',
        }),
      ),
    ),
    prompts: Object.freeze(prompts.map(({ name, description }) => Object.freeze({ name, description }))),
    promptsByName: new Map(prompts.map((prompt) => [prompt.name, prompt])),
    directories: skillDirectories(catalog, entries),
    mayUse,
  });
  return view;
}
