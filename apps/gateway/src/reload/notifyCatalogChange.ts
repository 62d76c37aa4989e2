import type { Catalog } from '@skillgate/skills';
import type { SessionStore } from '@skillgate/state';
import { diffCatalogs, isEmptyDiff } from '../core/catalogDiff.js';
import type { Audience } from '../disclosure/audience.js';
import type { DisclosurePolicy } from '../disclosure/disclosurePolicy.js';
import {
  notifySkillsChange,
  type SkillsChangeNotifier,
  type SkillsChangeTargets,
} from './notifySkillsChange.js';

/** Where list changes go besides legacy sessions: the 2026-07-28 subscriptions/listen streams. */
export interface ModernNotifier extends SkillsChangeNotifier {
  /** Tells the listen streams of the audiences `affects` accepts that their tools list changed. */
  toolsChanged(affects: (audience: Audience) => boolean | Promise<boolean>): Promise<void>;
}

/** Where a reload's changes are told, and whose unlocks and lists they touch. */
export interface CatalogChangeTargets extends SkillsChangeTargets {
  readonly modern: ModernNotifier;
  /** A removed skill leaves every unlock set. */
  readonly store: Pick<SessionStore, 'forget'>;
  readonly disclosure: Pick<DisclosurePolicy, 'touches' | 'affectedBy'>;
}

/**
 * After a reload: drops removed skills from every unlock set, sends one tools/list_changed to each legacy
 * session whose list changed (on its GET stream: no request is in flight to relate it to), and one to
 * each modern listen stream whose principal's list changed (the same rule). Returns the number of legacy
 * sessions notified.
 */
export async function notifyCatalogChange(
  targets: CatalogChangeTargets,
  previous: Catalog,
  next: Catalog,
): Promise<number> {
  const { sessions, modern, disclosure, log } = targets;
  // Skill entries and prompts (the Skills extension) change independently of tools: a byte of a reference.
  await notifySkillsChange(targets, previous, next);
  const diff = diffCatalogs(previous, next);
  if (isEmptyDiff(diff)) return 0;
  if (diff.removed.size > 0) await targets.store.forget(diff.removed);
  await modern.toolsChanged((audience) => disclosure.affectedBy(diff, previous, next, audience));
  let notified = 0;
  for (const session of [...sessions.all()]) {
    if (!(await disclosure.affectedBy(diff, previous, next, session.audience))) continue;
    notified += 1;
    await session.server.sendToolListChanged().catch((error: unknown) => {
      log.debug({ err: error, session: session.audience.scopeKey }, 'list_changed not delivered');
    });
  }
  return notified;
}
