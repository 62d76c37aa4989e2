import { DISCLOSURES, type Disclosure } from '@skillgate/skills';
import { gatewaySettings } from '../compose/gatewaySettings.js';
import { buildCatalog } from '../core/catalogSource.js';
import { configFrom, type Flags } from './configFrom.js';
import { previewPolicy } from './previewPolicy.js';
import { principalOf } from './principalOf.js';
import { sourcesCatalogSettings } from './sourcesCatalogSettings.js';
import { upstreamSnapshots } from './upstreamSnapshots.js';
import { UsageError } from './usage.js';

/**
 * `skillgate tools`: the tool list a session would see, of every skill or of what token NAME may use, with
 * --unlock'ed skills' tools (upstreams are connected once, so their call tools show).
 */
export async function toolsCommand(flags: Flags, roots: readonly string[]): Promise<number> {
  const settings = gatewaySettings(await configFrom(flags, roots));
  const principal = principalOf(settings.auth, flags.token);
  const disclosure = (flags.disclosure ?? settings.disclosurePicker.fallback) as Disclosure;
  if (!DISCLOSURES.includes(disclosure)) {
    throw new UsageError(`--disclosure must be one of ${DISCLOSURES.join(', ')}`);
  }
  const snapshots = await upstreamSnapshots(settings);
  const catalog = await buildCatalog(await sourcesCatalogSettings(settings), snapshots);
  // An upstream that could not be reached has no tools to show: say so rather than list nothing silently.
  for (const s of snapshots.filter((u) => u.state !== 'ready')) {
    const why = s.lastError === undefined ? '' : ` (${s.lastError})`;
    process.stderr.write(`note: upstream "${s.id}" is ${s.state}${why}: its call tools are not listed\n`);
  }
  const unlock = flags.unlock ?? [];
  const unknown = unlock.filter((name) => !catalog.skills.has(name));
  if (unknown.length > 0) throw new UsageError(`unknown skill(s): ${unknown.join(', ')}`);
  // The same list the operator page shows for the principal (apps/gateway/src/operator/).
  const policy = previewPolicy(settings.disclosure);
  const mode = policy.modeOf(catalog, principal, disclosure);
  if (mode !== disclosure) {
    process.stderr.write(
      `note: ${disclosure} would list more than tools.max_listed (${settings.disclosure.maxListed}) tools at first: this principal gets search\n`,
    );
  }
  const list = policy.previewTools(catalog, principal, disclosure, new Set(unlock));
  if (flags.json === true) process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
  else for (const tool of list) process.stdout.write(`${tool.name}\n`);
  return 0;
}
