import type { CatalogSkill } from '../catalog/catalogTypes.js';
import { searchTerms } from './searchTerms.js';

/** The fields of one skill that search ranks by (docs/decisions.md, search ranking). */
export interface SearchDocument {
  /** The skill name: the document id. */
  readonly id: string;
  readonly name: string;
  readonly description: string;
  /** SKILL.md headings, one a line. */
  readonly headings: string;
  /** SKILL.md body without its headings. */
  readonly body: string;
  /** Paths of the skill's files. */
  readonly paths: string;
  /** Names and descriptions of the upstream tools the skill exposes. */
  readonly tools: string;
}

/** A script or upstream tool of a skill that a search result may name, with its index terms. */
export interface SearchableTool {
  /** The path of a script, or the upstream tool's name for call_skill_tool. */
  readonly name: string;
  readonly description: string;
  readonly terms: ReadonlySet<string>;
}

/** Index text kept per field: a huge SKILL.md costs no more than this to index (or to stall on). */
const MAX_FIELD_CHARS = 32_768;
/** A result names a tool's description up to this long. */
const MAX_TOOL_DESCRIPTION_CHARS = 200;

const bounded = (text: string) => (text.length > MAX_FIELD_CHARS ? text.slice(0, MAX_FIELD_CHARS) : text);
const oneLine = (text: string) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_TOOL_DESCRIPTION_CHARS
    ? `${line.slice(0, MAX_TOOL_DESCRIPTION_CHARS - 1)}…`
    : line;
};

// Per catalog entry (entries are immutable and replaced on reload): computed once, shared by every index.
const documents = new WeakMap<CatalogSkill, SearchDocument>();
const toolLists = new WeakMap<CatalogSkill, readonly SearchableTool[]>();

/** The search document of a catalog skill. */
export function searchDocument(entry: CatalogSkill): SearchDocument {
  const known = documents.get(entry);
  if (known !== undefined) return known;
  const headings: string[] = [];
  const body: string[] = [];
  for (const line of entry.skill.body.split('\n')) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading?.[1] === undefined) body.push(line);
    else headings.push(heading[1]);
  }
  const document: SearchDocument = Object.freeze({
    id: entry.skill.name,
    name: entry.skill.name,
    description: entry.skill.description,
    headings: bounded(headings.join('\n')),
    body: bounded(body.join('\n')),
    paths: bounded(entry.skill.files.map((f) => f.path).join('\n')),
    tools: bounded(
      [...entry.calls.values()]
        .flat()
        .map((c) => `${c.tool}\n${c.definition.description}`)
        .join('\n'),
    ),
  });
  documents.set(entry, document);
  return document;
}

/** The scripts and upstream tools of a catalog skill, as a search result may name them. */
export function searchableTools(entry: CatalogSkill): readonly SearchableTool[] {
  const known = toolLists.get(entry);
  if (known !== undefined) return known;
  const tools: SearchableTool[] = [];
  for (const file of entry.skill.files) {
    if (!file.isScript) continue;
    const description = `script: run_skill_script { skill: "${entry.skill.name}", path: "${file.path}" }`;
    tools.push({ name: file.path, description, terms: searchTerms(file.path) });
  }
  for (const call of [...entry.calls.values()].flat()) {
    const own = oneLine(call.definition.description);
    // A name two upstreams share is called with its upstream as its own argument (never a qualified name).
    const description = call.needsUpstream ? `upstream "${call.upstream}": ${own}` : own;
    tools.push({
      name: call.tool,
      description,
      terms: searchTerms(`${call.tool} ${own}`),
    });
  }
  const frozen = Object.freeze(tools);
  toolLists.set(entry, frozen);
  return frozen;
}
