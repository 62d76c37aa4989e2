import type { Skill, SkillFile } from '../load/loadTypes.js';
import type { UpstreamSnapshot } from './upstreamTypes.js';

/** Longest auto-skill description, the Agent Skills specification's limit for any skill. */
const MAX_DESCRIPTION_CHARS = 1024;
/** Longest upstream `instructions` kept as an auto skill's body. */
const MAX_INSTRUCTIONS_CHARS = 16_384;

/** Cuts text to `max` characters, marking the cut. */
export function bounded(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * The first sentence of prose in Markdown: headings, fences and blank lines skipped, the first paragraph
 * joined, cut at the first `.`, `!` or `?` followed by a space or the end.
 */
function firstSentence(markdown: string): string | undefined {
  const paragraph: string[] = [];
  let fenced = false;
  for (const raw of markdown.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith('```') || line.startsWith('~~~')) {
      fenced = !fenced;
      if (paragraph.length > 0) break;
      continue;
    }
    if (fenced) continue;
    if (line === '' || line.startsWith('#')) {
      if (paragraph.length > 0) break;
      continue;
    }
    paragraph.push(line);
  }
  const prose = paragraph.join(' ').replace(/\s+/g, ' ').trim();
  if (prose === '') return undefined;
  const end = /[.!?](?=\s|$)/.exec(prose);
  return end === null ? prose : prose.slice(0, end.index + 1);
}

/**
 * An auto skill's description: the configured one, else the first sentence of the upstream's instructions,
 * else its serverInfo title or name, else a plain note (docs/upstreams.md).
 */
function upstreamDescription(snapshot: UpstreamSnapshot): string {
  const text =
    snapshot.description?.trim() ||
    firstSentence(snapshot.instructions ?? '') ||
    snapshot.serverInfo?.title?.trim() ||
    snapshot.serverInfo?.name.trim() ||
    `Tools of the MCP server "${snapshot.id}".`;
  return bounded(text, MAX_DESCRIPTION_CHARS);
}

/**
 * The synthetic skill of a `skill: auto` upstream: named by its id, no directory and no files, its body the
 * upstream's instructions (its tools are listed after the body by the get_info texts).
 */
export function upstreamSkill(snapshot: UpstreamSnapshot): Skill {
  const description = upstreamDescription(snapshot);
  const body = bounded((snapshot.instructions ?? '').trim(), MAX_INSTRUCTIONS_CHARS);
  const where = `upstream:${snapshot.id}`;
  const skillMd: SkillFile = {
    path: 'SKILL.md',
    absolutePath: where,
    size: Buffer.byteLength(body),
    isScript: false,
    isExecutable: false,
    mimeType: 'text/markdown',
    isBinary: false,
  };
  return {
    name: snapshot.id,
    description,
    metadata: {},
    body,
    frontmatter: { name: snapshot.id, description },
    skillMd,
    dir: where,
    realDir: where,
    root: 'upstreams',
    files: [],
  };
}
