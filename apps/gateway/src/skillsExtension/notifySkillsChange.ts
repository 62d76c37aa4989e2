import type { Catalog } from '@skillgate/skills';
import type { Principal } from '../auth/accessPolicy.js';
import type { LiveSessions } from '../legacy/liveSessions.js';
import type { GatewayRuntime } from '../runtime.js';
import { diffSkillsExtension } from './diffSkillsExtension.js';

/** Where skill list changes go besides legacy sessions: the 2026-07-28 subscriptions/listen streams. */
export interface SkillsChangeNotifier {
  resourcesChanged(): void;
  promptsChanged(): void;
}

/**
 * After a reload: `resources/list_changed` when a skill entry changed (a host holding entries refreshes
 * them: new digests revoke approvals), `prompts/list_changed` when a prompt appeared, vanished or was
 * renamed (with `skills.prompts`). Legacy sessions hear only of skills their principal may use, before or
 * after; modern streams are not per principal, so they hear of every change (docs/skills-extension.md).
 */
export async function notifySkillsChange(
  runtime: GatewayRuntime,
  sessions: LiveSessions,
  modern: SkillsChangeNotifier,
  previous: Catalog,
  next: Catalog,
): Promise<void> {
  const diff = diffSkillsExtension(previous, next);
  const prompts = runtime.config.skills.prompts ? diff.prompts : new Set<string>();
  if (diff.entries.size === 0 && prompts.size === 0) return;
  if (diff.entries.size > 0) modern.resourcesChanged();
  if (prompts.size > 0) modern.promptsChanged();
  const touches = (principal: Principal, changed: ReadonlySet<string>) => {
    const before = runtime.policy.allowedSkills(principal, previous);
    const after = runtime.policy.allowedSkills(principal, next);
    if (before === undefined || after === undefined) return changed.size > 0;
    return [...changed].some((name) => before.has(name) || after.has(name));
  };
  for (const session of [...sessions.all()]) {
    const { principal } = session.audience;
    const failed = (error: unknown) =>
      runtime.log.debug({ err: error, session: session.audience.scopeKey }, 'list_changed not delivered');
    if (touches(principal, diff.entries)) await session.server.sendResourceListChanged().catch(failed);
    if (touches(principal, prompts)) await session.server.sendPromptListChanged().catch(failed);
  }
}
