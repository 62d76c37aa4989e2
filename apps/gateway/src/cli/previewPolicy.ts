import type { SkillgateConfig } from '@skillgate/config';
import { createAccessPolicy } from '../auth/accessPolicy.js';
import { createDisclosurePolicy, type DisclosurePolicy } from '../disclosure/disclosurePolicy.js';

/**
 * The gateway's own rule without sessions: the disclosure policy over the access policy's globs (the
 * principal carries them), nothing unlocked unless asked.
 */
export function previewPolicy(config: SkillgateConfig): DisclosurePolicy {
  return createDisclosurePolicy({
    access: createAccessPolicy({ tokens: [], allowAnonymous: true, anonymousSkills: [] }),
    store: { unlocked: async () => new Set() },
    maxInstructionsChars: config.skills.max_instructions_chars,
    maxListed: config.tools.max_listed,
  });
}
