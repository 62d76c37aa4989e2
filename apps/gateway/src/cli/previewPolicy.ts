import { createAccessPolicy } from '../auth/accessPolicy.js';
import type { GatewaySettings } from '../compose/gatewaySettings.js';
import { createDisclosurePolicy, type DisclosurePolicy } from '../disclosure/disclosurePolicy.js';

/**
 * The gateway's own rule without sessions: the disclosure policy over the access policy's globs (the
 * principal carries them), nothing unlocked unless asked.
 */
export function previewPolicy(bounds: GatewaySettings['disclosure']): DisclosurePolicy {
  return createDisclosurePolicy({
    access: createAccessPolicy({ tokens: [], allowAnonymous: true, anonymousSkills: [] }),
    store: { unlocked: async () => new Set() },
    ...bounds,
  });
}
