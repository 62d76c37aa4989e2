import type { SkillgateConfig } from '@skillgate/config';
import { DISCLOSURES, type Disclosure, type UpstreamSnapshot } from '@skillgate/skills';
import { catalogSettings, upstreamDefinitions } from '../compose/gatewaySettings.js';
import { previewToolList } from '../disclosure/disclosurePolicy.js';
import { buildCatalog } from '../reload/catalogSource.js';
import { createGatewayUpstreamPool } from '../upstreams/createGatewayUpstreamPool.js';
import { configFrom, type Flags } from './configFrom.js';
import { UsageError } from './usage.js';

/**
 * The upstreams' snapshots after one connection attempt each (as serve would start them), so that `tools`
 * shows their call tools; the pool is closed again before printing.
 */
async function connectedUpstreams(config: SkillgateConfig): Promise<readonly UpstreamSnapshot[]> {
  if (config.upstreams.length === 0) return [];
  const quiet = { info: () => {}, warn: () => {} };
  const pool = createGatewayUpstreamPool({
    upstreams: upstreamDefinitions(config),
    env: process.env,
    log: quiet,
  });
  try {
    await pool.start();
    return pool.snapshots();
  } finally {
    await pool.close();
  }
}

/** `skillgate tools`: the tool list a session would see, with --unlock'ed skills' tools. */
export async function toolsCommand(flags: Flags, roots: readonly string[]): Promise<number> {
  const config = await configFrom(flags, roots);
  const disclosure = (flags.disclosure ?? config.skills.disclosure) as Disclosure;
  if (!DISCLOSURES.includes(disclosure)) {
    throw new UsageError(`--disclosure must be one of ${DISCLOSURES.join(', ')}`);
  }
  const catalog = await buildCatalog(catalogSettings(config), await connectedUpstreams(config));
  const unlock = flags.unlock ?? [];
  const unknown = unlock.filter((name) => !catalog.skills.has(name));
  if (unknown.length > 0) throw new UsageError(`unknown skill(s): ${unknown.join(', ')}`);
  const list = previewToolList(catalog, disclosure, new Set(unlock));
  if (flags.json === true) process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
  else for (const tool of list) process.stdout.write(`${tool.name}\n`);
  return 0;
}
