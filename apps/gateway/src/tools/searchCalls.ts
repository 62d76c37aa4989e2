import type { CallToolResult } from '@modelcontextprotocol/server';
import {
  type InputOf,
  LIST_ALL_QUERY,
  LOAD_SKILL_TOOL,
  queryTermCount,
  type SkillHit,
} from '@skillgate/skills';
import type { RateLimiter } from '@skillgate/state';
import { chargeRateLimit } from '../auth/requestGuard.js';
import type { DisclosurePolicy } from '../disclosure/disclosurePolicy.js';
import { GatewayError } from '../errors/gatewayError.js';
import type { KindHandlers } from './kindHandler.js';
import type { SkillSearch } from './skillSearch.js';
import type { ToolCall } from './toolCall.js';

const DEFAULT_LIMIT = 5;

/**
 * A search is charged one more request's worth per this many distinct query terms (its request already paid
 * one): its work grows with its terms, so a flood of long queries spends the budget it costs. Most queries
 * (the dev set's median has 14 terms) pay nothing more; a 1,000-character one pays about 5 more
 * (docs/limits.md, "Searches").
 */
const SEARCH_TERMS_PER_REQUEST = 16;

/** One result as search_skills returns it: the hit and the exact load_skill call that reads the skill. */
interface SearchResult extends SkillHit {
  readonly load: { readonly tool: typeof LOAD_SKILL_TOOL; readonly arguments: { readonly name: string } };
}

/** What search_skills uses. */
export interface SearchServices {
  /** Which skills the caller may find. */
  readonly disclosure: Pick<DisclosurePolicy, 'usableSkillSet'>;
  /** search_skills' indexes. */
  readonly search: Pick<SkillSearch, 'search'>;
  /** The per-principal budget a long query is charged to (the request guard's). */
  readonly rateLimiter: RateLimiter;
}

/** search_skills, over the caller's skills. */
export function searchCalls(services: SearchServices): Pick<KindHandlers, 'search_skills'> {
  return {
    async search_skills(call, _target, input) {
      return searchSkills(services, call, input);
    },
  };
}

/**
 * search_skills: the ranked skills among those the caller may use (docs/disclosure.md), in
 * structuredContent and as compact text. A cursor of another query is an argument error.
 */
async function searchSkills(
  services: SearchServices,
  call: ToolCall,
  input: InputOf<'search_skills'>,
): Promise<CallToolResult> {
  const { catalog, audience } = call;
  const extra = Math.floor(queryTermCount(input.query) / SEARCH_TERMS_PER_REQUEST);
  if (extra > 0) await chargeRateLimit(services.rateLimiter, audience.principal, extra);
  const allowed = services.disclosure.usableSkillSet(catalog, audience.principal);
  const page = await services.search.search(catalog, allowed, {
    query: input.query,
    limit: input.limit ?? DEFAULT_LIMIT,
    ...(input.cursor === undefined ? {} : { cursor: input.cursor }),
  });
  if (page === undefined) {
    throw new GatewayError(
      'INVALID_ARGUMENTS',
      'Invalid arguments for tool search_skills: cursor is not a nextCursor of this query (send the same query with it, or drop it)',
    );
  }
  const results: SearchResult[] = page.results.map((hit) => ({
    ...hit,
    load: { tool: LOAD_SKILL_TOOL, arguments: { name: hit.skill } },
  }));
  const total = allowed?.size ?? catalog.skills.size;
  return {
    content: [{ type: 'text', text: searchText(input.query, results, page.nextCursor, total) }],
    structuredContent: {
      results,
      ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
    },
  };
}

/** The compact text of a page: one line per skill, its matching tools, then how to go on. */
function searchText(
  query: string,
  results: readonly SearchResult[],
  nextCursor: string | undefined,
  total: number,
): string {
  if (results.length === 0) {
    return query.trim() === LIST_ALL_QUERY
      ? 'No skills are available.'
      : `No skill matches "${query}". Try other words (what the task does, a product or file name), or query "*" to list all ${total} skills in name order, page by page with cursor.`;
  }
  const lines = results.map((r) => {
    const tools = r.tools.length === 0 ? '' : ` [tools: ${r.tools.map((t) => t.name).join(', ')}]`;
    return `- ${r.skill}: ${r.description.replace(/\s+/g, ' ')}${tools}`;
  });
  const head = `Call ${LOAD_SKILL_TOOL} {"name": "<skill>"} to read a skill's instructions before using it.`;
  const more =
    nextCursor === undefined ? '' : `\nMore: call search_skills again with cursor "${nextCursor}".`;
  return `${head}\n${lines.join('\n')}${more}`;
}
