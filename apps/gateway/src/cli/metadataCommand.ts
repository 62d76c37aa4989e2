import { renderSummary, type SummaryFormat } from '@skillgate/skills';
import { gatewaySettings } from '../compose/gatewaySettings.js';
import { buildCatalog } from '../core/catalogSource.js';
import { configFrom, type Flags } from './configFrom.js';
import { sourcesCatalogSettings } from './sourcesCatalogSettings.js';
import { UsageError } from './usage.js';

/** `skillgate metadata`: the L1 skill summary as markdown, JSON or XML. */
export async function metadataCommand(flags: Flags, roots: readonly string[]): Promise<number> {
  const format = (flags.format ?? 'markdown') as SummaryFormat;
  if (!['markdown', 'json', 'xml'].includes(format))
    throw new UsageError(`--format must be markdown, json or xml`);
  const catalog = await buildCatalog(
    await sourcesCatalogSettings(gatewaySettings(await configFrom(flags, roots))),
  );
  process.stdout.write(`${renderSummary(catalog.skills.values(), format)}\n`);
  return 0;
}
