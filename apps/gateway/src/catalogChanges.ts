import type { Catalog } from '@skillgate/skills';
import type { LiveSessions } from './liveSessions.js';
import type { GatewayRuntime } from './runtime.js';

/** Which skills a reload touched, split by what a session could see of it. */
export interface CatalogDiff {
  /** Added, removed, or with a new get_info definition: visible to every session that may use the skill. */
  readonly listed: ReadonlySet<string>;
  /** Skills whose run/read tools changed: visible to sessions that unlocked them (and eager ones). */
  readonly tools: ReadonlySet<string>;
  readonly removed: ReadonlySet<string>;
}

/** Compares two catalogs skill by skill (definitions are small, and this runs once per reload). */
export function diffCatalogs(previous: Catalog, next: Catalog): CatalogDiff {
  const listed = new Set<string>();
  const tools = new Set<string>();
  const removed = new Set<string>();
  for (const [name, before] of previous.skills) {
    const after = next.skills.get(name);
    if (after === undefined) {
      removed.add(name);
      listed.add(name);
      continue;
    }
    if (JSON.stringify(before.getInfoTool) !== JSON.stringify(after.getInfoTool)) listed.add(name);
    if (
      JSON.stringify(before.tools) !== JSON.stringify(after.tools) ||
      before.getInfoText !== after.getInfoText
    ) {
      tools.add(name);
    }
  }
  for (const name of next.skills.keys()) if (!previous.skills.has(name)) listed.add(name);
  return { listed, tools, removed };
}

/**
 * After a reload: drops removed skills from every unlock set, then sends one tools/list_changed to each
 * session whose visible tools changed (on its GET stream: no request is in flight to relate it to).
 */
export async function notifyCatalogChange(
  runtime: GatewayRuntime,
  sessions: LiveSessions,
  previous: Catalog,
  next: Catalog,
): Promise<number> {
  const diff = diffCatalogs(previous, next);
  if (diff.listed.size === 0 && diff.tools.size === 0) return 0;
  if (diff.removed.size > 0) await runtime.store.forget(diff.removed);
  let notified = 0;
  for (const session of [...sessions.all()]) {
    const { principal, record } = session.ctx;
    const before = runtime.policy.allowedSkills(principal, previous);
    const after = runtime.policy.allowedSkills(principal, next);
    const mayUse = (name: string) =>
      before === undefined || after === undefined || before.has(name) || after.has(name);
    const unlocked = await runtime.store.unlocked(record.scopeKey);
    const seesTools = (name: string) => record.disclosure === 'eager' || unlocked.has(name);
    const affected =
      [...diff.listed].some(mayUse) ||
      (record.disclosure !== 'universal' && [...diff.tools].some((name) => mayUse(name) && seesTools(name)));
    if (!affected) continue;
    notified += 1;
    await session.server.sendToolListChanged().catch((error: unknown) => {
      runtime.log.debug({ err: error, session: record.id }, 'list_changed not delivered');
    });
  }
  return notified;
}
