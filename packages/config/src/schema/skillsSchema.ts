import {
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_SKILL_MD_BYTES,
  DISCLOSURES,
  MAX_DESCRIPTION_CHARS,
} from '@skillgate/skills';
import { z } from 'zod';
import { count } from './fieldTypes.js';

// The modes are defined once, by the skills library that builds their tool lists.
const MODERN_DISCLOSURES = ['catalog', 'universal', 'eager', 'search'] as const;

/** The `skills` config section. */
export const skillsSchema = z.strictObject({
  roots: z
    .array(z.string().min(1))
    .default([])
    .describe(
      'Skill root folders, in order; the first wins on a name clash. Relative to the config file. None by default: the bundled configs/skillgate.yaml names ../examples/skills.',
    ),
  validation: z
    .enum(['lenient', 'strict'])
    .default('lenient')
    .describe('strict refuses a skill with any problem; lenient serves it with warnings.'),
  disclosure: z
    .enum(DISCLOSURES)
    .default('namespaced')
    .describe(
      'How 2025-era sessions see skills (namespaced, universal, eager, catalog or search); client profiles override it. Past tools.max_listed a principal gets search whatever this says.',
    ),
  modern_disclosure: z
    .enum(MODERN_DISCLOSURES)
    .default('catalog')
    .describe(
      'How 2026-07-28 requests see skills: catalog, universal, eager or search (namespaced needs sessions and is refused).',
    ),
  pinned: z
    .array(z.string().min(1))
    .default([])
    .describe(
      'Globs of skill names whose get_info tools search mode lists beside search_skills and load_skill (the skills nearly every task needs).',
    ),
  async_enabled: z
    .boolean()
    .default(false)
    .describe('Offer run_async tools and skill_get_async_status / skill_cancel_async.'),
  prompts: z
    .boolean()
    .default(false)
    .describe(
      'Also serve one MCP prompt per allowed skill (prompts/list, prompts/get: the SKILL.md body), named like its tools.',
    ),
  watch: z.boolean().default(false).describe('Reload skills when files change and notify affected sessions.'),
  watch_debounce_ms: count(10)
    .max(60_000)
    .default(300)
    .describe('Quiet time after a change before reloading.'),
  max_skill_md_bytes: count(1024)
    .max(16_777_216)
    .default(DEFAULT_MAX_SKILL_MD_BYTES)
    .describe('Largest SKILL.md served; a larger one refuses its skill (reported by validate).'),
  max_file_bytes: count(1024)
    .max(2 ** 40)
    .default(DEFAULT_MAX_FILE_BYTES)
    .describe(
      'Largest file of a skill served (read or run); a larger one is skipped before it is read or hashed (reported by validate).',
    ),
  max_description_chars: count(16)
    .max(MAX_DESCRIPTION_CHARS)
    .default(MAX_DESCRIPTION_CHARS)
    .describe(
      'Longest skill description served (the specification allows 1024); a longer one is cut in lenient mode, refused in strict.',
    ),
  max_instructions_chars: count(1024)
    .default(2048)
    .describe(
      'Budget of the whole initialize instructions (hosts keep about 2,048 characters): how to use the gateway, then every skill name, then descriptions as they fit.',
    ),
  allow_missing_roots: z
    .boolean()
    .default(false)
    .describe(
      'Start even if a skill root does not exist or is not a folder (/readyz names it); by default that fails start-up.',
    ),
});
