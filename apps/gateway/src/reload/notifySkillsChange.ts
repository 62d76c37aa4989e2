import type { Catalog } from '@skillgate/skills';
import type { FastifyBaseLogger } from 'fastify';
import type { Principal } from '../auth/accessPolicy.js';
import type { Audience } from '../disclosure/audience.js';
import type { DisclosurePolicy } from '../disclosure/disclosurePolicy.js';
import type { LiveSessions } from '../legacy/liveSessions.js';
import { diffSkillsExtension } from './diffSkillsExtension.js';

/** Where skill list changes go besides legacy sessions: the 2026-07-28 subscriptions/listen streams. */
export interface SkillsChangeNotifier {
  resourcesChanged(affects: (audience: Audience) => boolean): Promise<void>;
  promptsChanged(affects: (audience: Audience) => boolean): Promise<void>;
}

/** Where a reload's skill changes are told, and who may hear of which skill. */
export interface SkillsChangeTargets {
  readonly sessions: Pick<LiveSessions, 'all'>;
  readonly modern: SkillsChangeNotifier;
  /** Which principals a changed skill touches. */
  readonly disclosure: Pick<DisclosurePolicy, 'touches'>;
  readonly log: FastifyBaseLogger;
  /** Whether skills are also prompts (`skills.prompts`): otherwise no prompts/list_changed. */
  readonly prompts: boolean;
}

/**
 * After a reload: `resources/list_changed` when a skill entry changed (a host holding entries refreshes
 * them: new digests revoke approvals), `prompts/list_changed` when a prompt appeared, vanished or was
 * renamed (with `skills.prompts`). Sessions and listen streams hear only of skills their principal may use,
 * before or after (docs/skills-extension.md).
 */
export async function notifySkillsChange(
  targets: SkillsChangeTargets,
  previous: Catalog,
  next: Catalog,
): Promise<void> {
  const { sessions, modern, disclosure, log } = targets;
  const diff = diffSkillsExtension(previous, next);
  const prompts = targets.prompts ? diff.prompts : new Set<string>();
  if (diff.entries.size === 0 && prompts.size === 0) return;
  const touches = (principal: Principal, changed: ReadonlySet<string>) =>
    disclosure.touches(previous, next, principal, changed);
  if (diff.entries.size > 0)
    await modern.resourcesChanged(({ principal }) => touches(principal, diff.entries));
  if (prompts.size > 0) await modern.promptsChanged(({ principal }) => touches(principal, prompts));
  for (const session of [...sessions.all()]) {
    const { principal } = session.audience;
    const failed = (error: unknown) =>
      log.debug({ err: error, session: session.audience.scopeKey }, 'list_changed not delivered');
    if (touches(principal, diff.entries)) await session.server.sendResourceListChanged().catch(failed);
    if (touches(principal, prompts)) await session.server.sendPromptListChanged().catch(failed);
  }
}
