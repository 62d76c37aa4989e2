import type { SkillgateConfig, UpstreamConfig } from '@skillgate/config';
import type { UpstreamSnapshot } from '@skillgate/skills';
import type { CatalogSettings } from '../core/catalogSource.js';

/** What the config alone says of an upstream, before any connection: enough to name its auto skill. */
const configuredUpstream = (u: UpstreamConfig): UpstreamSnapshot => ({
  id: u.id,
  skill: u.skill,
  ...(u.description === undefined ? {} : { description: u.description }),
  state: 'connecting',
  tools: [],
});

/** How skills are loaded and built into a catalog (also what the CLI's commands build). */
export function catalogSettings(config: SkillgateConfig): CatalogSettings {
  return {
    // The runner's interpreters decide which files under scripts/ get run tools (docs/decisions.md).
    load: {
      roots: config.skills.roots,
      validation: config.skills.validation,
      interpreterExtensions: Object.keys(config.scripts.interpreters),
      maxSkillMdBytes: config.skills.max_skill_md_bytes,
      maxFileBytes: config.skills.max_file_bytes,
      maxDescriptionChars: config.skills.max_description_chars,
    },
    build: {
      maxNameLength: config.tools.max_name_length,
      asyncEnabled: config.skills.async_enabled,
      maxTimeoutSeconds: config.scripts.max_timeout_seconds,
      pinned: config.skills.pinned,
      argumentLimits: {
        maxArgs: config.scripts.max_args,
        maxArgBytes: config.scripts.max_arg_bytes,
        maxStdinBytes: config.scripts.max_stdin_bytes,
      },
    },
    configuredUpstreams: config.upstreams.map(configuredUpstream),
  };
}
