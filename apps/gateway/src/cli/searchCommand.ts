import { buildSkillIndex, MAX_SEARCH_LIMIT } from '@skillgate/skills';
import { gatewaySettings } from '../compose/gatewaySettings.js';
import { buildCatalog } from '../core/catalogSource.js';
import { configFrom, type Flags } from './configFrom.js';
import { previewPolicy } from './previewPolicy.js';
import { principalOf } from './principalOf.js';
import { sourcesCatalogSettings } from './sourcesCatalogSettings.js';
import { upstreamSnapshots } from './upstreamSnapshots.js';
import { UsageError } from './usage.js';

/**
 * `skillgate search [ROOT...] QUERY`: the skills search_skills ranks for QUERY, of every skill or of what
 * token NAME may use, with their scores and matching tools, so that a skill author can check that a
 * description is findable (docs/disclosure.md).
 */
export async function searchCommand(flags: Flags, positionals: readonly string[]): Promise<number> {
  const query = positionals.at(-1);
  if (query === undefined || query.trim() === '') throw new UsageError('search needs a QUERY');
  const limit = flags.limit === undefined ? 5 : Number(flags.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT) {
    throw new UsageError(`--limit must be an integer from 1 to ${MAX_SEARCH_LIMIT}, got "${flags.limit}"`);
  }
  const settings = gatewaySettings(await configFrom(flags, positionals.slice(0, -1)));
  const principal = principalOf(settings.auth, flags.token);
  const catalog = await buildCatalog(
    await sourcesCatalogSettings(settings),
    await upstreamSnapshots(settings),
  );
  const allowed = previewPolicy(settings.disclosure).usableSkillSet(catalog, principal);
  // The index the gateway builds for the catalog, searched as this allow-list: only these skills are scored.
  const index = buildSkillIndex([...catalog.skills.values()]);
  const page = index.search({ query, limit }, allowed);
  const results = page?.results ?? [];
  if (flags.json === true) {
    process.stdout.write(
      `${JSON.stringify({ results, ...(page?.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }) }, null, 2)}\n`,
    );
    return 0;
  }
  if (results.length === 0)
    process.stdout.write(`no skill of ${allowed?.size ?? index.size} matches "${query}"\n`);
  results.forEach((hit, i) => {
    const tools = hit.tools.length === 0 ? '' : `\n   tools: ${hit.tools.map((t) => t.name).join(', ')}`;
    process.stdout.write(`${i + 1}. ${hit.skill}  (score ${hit.score})\n   ${hit.description}${tools}\n`);
  });
  return 0;
}
