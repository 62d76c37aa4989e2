import type { GatewayRuntime } from '../runtime.js';
import { createSkillsService, type SkillsService } from './skillsService.js';

const services = new WeakMap<GatewayRuntime, SkillsService>();

/** The one skills service of a gateway, shared by both eras (created on first use). */
export function skillsServiceOf(runtime: GatewayRuntime): SkillsService {
  let service = services.get(runtime);
  if (service === undefined) {
    service = createSkillsService(runtime);
    services.set(runtime, service);
  }
  return service;
}
