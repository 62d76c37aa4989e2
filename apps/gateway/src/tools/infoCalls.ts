import type { CallToolResult } from '@modelcontextprotocol/server';
import type { CatalogSkill } from '@skillgate/skills';
import type { SessionStore } from '@skillgate/state';
import { createOwnedMemo } from '../core/catalogMemo.js';
import { renderOnce } from '../core/renderedJson.js';
import type { DisclosurePolicy } from '../disclosure/disclosurePolicy.js';
import type { Metrics } from '../observability/metrics.js';
import type { KindHandlers } from './kindHandler.js';
import { requireSkill, unknownSkill, usableSkill } from './skillLookup.js';
import type { ToolCall } from './toolCall.js';

/** What get_info and load_skill use. */
export interface InfoServices {
  /** A skill's text for the caller, the unlock effect, and (load_skill) which skills the caller may use. */
  readonly disclosure: Pick<
    DisclosurePolicy,
    'unlockEffect' | 'infoText' | 'usableSkill' | 'usableSkillNames'
  >;
  /** Where get_info records an unlock. */
  readonly unlocks: Pick<SessionStore, 'unlock'>;
  readonly metrics: Pick<Metrics, 'inc'>;
}

/** get_info and load_skill: a skill's instructions for the caller, unlocking its tools where that matters. */
export function infoCalls(services: InfoServices): Pick<KindHandlers, 'get_info' | 'load_skill'> {
  const { disclosure } = services;
  return {
    async get_info(call, target) {
      return skillInfo(services, call, requireSkill(call, target.skill));
    },
    async load_skill(call, _target, input) {
      const entry = usableSkill(disclosure, call, input.name);
      return entry === undefined
        ? unknownSkill(disclosure, call, input.name)
        : skillInfo(services, call, entry);
    },
  };
}

/** get_info / load_skill: the skill's instructions for this audience, unlocking where that matters. */
async function skillInfo(
  services: InfoServices,
  call: ToolCall,
  entry: CatalogSkill,
): Promise<CallToolResult> {
  const { disclosure } = services;
  const { audience } = call;
  const effect = disclosure.unlockEffect(call.catalog, audience, entry);
  if (
    effect.record &&
    (await services.unlocks.unlock(audience.scopeKey, entry.skill.name, effect.limit)).added
  ) {
    // Under tools.max_listed the unlock may have dropped the least recently used skills: still one list_changed.
    services.metrics.inc('skillgate_unlocks_total');
    // One notification, on this request's stream, so clients without a GET stream get it too.
    if (effect.notify) await call.notifyToolsChanged();
  }
  return infoResult(entry, disclosure.infoText(call.catalog, entry, audience));
}

// get_info results per skill entry and text (one per disclosure mode): the same for every call until the
// catalog changes, so each is built once and written as JSON once (core/renderedJson.ts).
const infoResults = createOwnedMemo<CatalogSkill, string, CallToolResult>();

function infoResult(entry: CatalogSkill, text: string): CallToolResult {
  return infoResults(entry, text, () => renderOnce({ content: [{ type: 'text' as const, text }] }));
}
