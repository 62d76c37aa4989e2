import type { Catalog } from '@skillgate/skills';
import type { LiveSessions } from '../legacy/liveSessions.js';
import type { GatewayRuntime } from '../runtime.js';
import { notifySkillsChange, type SkillsChangeNotifier } from '../skillsExtension/notifySkillsChange.js';
import { diffCatalogs, isEmptyDiff } from './catalogDiff.js';

/** Where list changes go besides legacy sessions: the 2026-07-28 subscriptions/listen streams. */
export interface ModernNotifier extends SkillsChangeNotifier {
  toolsChanged(): void;
}

/**
 * After a reload: drops removed skills from every unlock set, sends one tools/list_changed to each legacy
 * session whose list changed (on its GET stream: no request is in flight to relate it to), and one to
 * the modern listen streams. Returns the number of legacy sessions notified.
 */
export async function notifyCatalogChange(
  runtime: GatewayRuntime,
  sessions: LiveSessions,
  modern: ModernNotifier,
  previous: Catalog,
  next: Catalog,
): Promise<number> {
  // Skill entries and prompts (the Skills extension) change independently of tools: a byte of a reference.
  await notifySkillsChange(runtime, sessions, modern, previous, next);
  const diff = diffCatalogs(previous, next);
  if (isEmptyDiff(diff)) return 0;
  if (diff.removed.size > 0) await runtime.store.forget(diff.removed);
  modern.toolsChanged();
  let notified = 0;
  for (const session of [...sessions.all()]) {
    if (!(await runtime.disclosure.affectedBy(diff, previous, next, session.audience))) continue;
    notified += 1;
    await session.server.sendToolListChanged().catch((error: unknown) => {
      runtime.log.debug({ err: error, session: session.audience.scopeKey }, 'list_changed not delivered');
    });
  }
  return notified;
}
