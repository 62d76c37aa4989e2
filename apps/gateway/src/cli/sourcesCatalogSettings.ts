import { materializeSources } from '@skillgate/sources';
import type { GatewaySettings } from '../compose/gatewaySettings.js';
import { sourcesOptions } from '../compose/sourcesOptions.js';
import type { CatalogSettings } from '../core/catalogSource.js';

/**
 * The catalog settings of a CLI run with `sources.list` fetched and verified as a start would (from the
 * cache when the lock's pins are there), so every command sees the skills the gateway would serve.
 */
export async function sourcesCatalogSettings(
  settings: Pick<GatewaySettings, 'catalog' | 'sources'>,
): Promise<CatalogSettings> {
  const { catalog } = settings;
  if (settings.sources.sources.length === 0) return catalog;
  const { roots } = await materializeSources(sourcesOptions(settings.sources, process.env));
  return { ...catalog, load: { ...catalog.load, sources: roots } };
}
