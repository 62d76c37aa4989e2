import type { SkillgateConfig } from '@skillgate/config';
import { materializeSources } from '@skillgate/sources';
import { catalogSettings } from '../compose/gatewaySettings.js';
import { sourcesOptions } from '../compose/sourcesOptions.js';
import type { CatalogSettings } from '../core/catalogSource.js';

/**
 * The catalog settings of a CLI run with `skills.sources` fetched and verified as a start would (from the
 * cache when the lock's pins are there), so every command sees the skills the gateway would serve.
 */
export async function sourcesCatalogSettings(config: SkillgateConfig): Promise<CatalogSettings> {
  const settings = catalogSettings(config);
  if (config.skills.sources.length === 0) return settings;
  const { roots } = await materializeSources(sourcesOptions(config, process.env));
  return { ...settings, load: { ...settings.load, sources: roots } };
}
