import { join } from 'node:path';
import type { Skill, SkillFile } from '../load/loadTypes.js';
import { fileToolSuffix } from '../names/fileToolSuffix.js';
import type { NameRegistry } from '../names/nameRegistry.js';
import { ASYNC_STATUS_TOOL } from '../names/toolNames.js';
import { buildCallTools } from '../upstreams/buildCallTools.js';
import type { SkillBindings } from '../upstreams/upstreamBindings.js';
import type { CallTool, CatalogSkill, ToolDefinition, ToolTarget } from './catalogTypes.js';
import { INPUT_OF_KIND } from './inputOfKind.js';
import { catalogInfoText, getInfoText, type ListedTool, loadSkillText } from './skillTexts.js';
import type { ToolSchemas } from './toolInputs.js';

/** What building one catalog skill needs from the catalog being built. */
export interface CatalogSkillContext {
  readonly registry: NameRegistry;
  readonly schemas: ToolSchemas;
  readonly asyncEnabled: boolean;
  /** Every tool name of the catalog and what it does; filled in here. */
  readonly targets: Map<string, ToolTarget>;
  /** The upstream tools the skill exposes (its bindings, or all tools of its upstream for an auto skill). */
  readonly bindings?: SkillBindings;
  /** Set for the auto skill of an upstream: its id. */
  readonly upstream?: string;
  /** Whether `skills.pinned` names the skill. */
  readonly isPinned: (skill: string) => boolean;
}

type FileKind = ListedTool['kind'];

function describe(kind: FileKind, file: SkillFile, skill: string): string {
  switch (kind) {
    case 'run':
      return `Run ${file.path} of skill "${skill}". Arguments are passed as argv, never through a shell.`;
    case 'run_async':
      return `Start ${file.path} of skill "${skill}" in the background; returns a job_id for ${ASYNC_STATUS_TOOL}.`;
    case 'read':
      return `Read ${file.path} of skill "${skill}" (${file.mimeType}, ${file.size} bytes).`;
  }
}

/**
 * Names and defines every tool of one skill, in the order that decides clashes (docs/skills.md, "Tool names"): get_info,
 * then per file (in path order) run, run_async, read, then the upstream tools it binds.
 */
export function buildCatalogSkill(skill: Skill, sname: string, context: CatalogSkillContext): CatalogSkill {
  const { registry, schemas, targets } = context;
  const getInfoName = registry.claim({
    sname,
    role: 'get_info',
    identity: `${skill.name}\0get_info`,
    owner: `get_info tool of skill "${skill.name}"`,
    file: join(skill.dir, 'SKILL.md'),
    skill: skill.name,
  });
  targets.set(getInfoName, { kind: 'get_info', skill: skill.name });
  // Only what a model needs: this definition is listed once per skill in every session's first tools/list.
  const getInfoTool: ToolDefinition = {
    name: getInfoName,
    description: skill.description,
    inputSchema: schemas[INPUT_OF_KIND.get_info],
  };

  const listed: ListedTool[] = [];
  const addTool = (kind: FileKind, file: SkillFile, sfile: string): string => {
    const name = registry.claim({
      sname,
      role: kind,
      sfile,
      identity: `${skill.name}\0${kind}\0${file.path}`,
      owner: `${kind} tool of ${file.path} of skill "${skill.name}"`,
      file: file.absolutePath,
      skill: skill.name,
    });
    targets.set(name, { kind, skill: skill.name, file });
    const definition: ToolDefinition = {
      name,
      description: describe(kind, file, skill.name),
      inputSchema: schemas[INPUT_OF_KIND[kind]],
      ...(kind === 'read' ? { annotations: { readOnlyHint: true } } : {}),
    };
    listed.push({ definition, kind, path: file.path });
    return name;
  };
  const toolNames = new Map<string, { read: string; run?: string; runAsync?: string }>();
  for (const file of skill.files) {
    const sfile = fileToolSuffix(file.path);
    // Evaluated in this order on purpose: it decides who keeps a clashing name.
    const run = file.isScript ? addTool('run', file, sfile) : undefined;
    const runAsync = file.isScript && context.asyncEnabled ? addTool('run_async', file, sfile) : undefined;
    const read = addTool('read', file, sfile);
    toolNames.set(file.path, {
      read,
      ...(run === undefined ? {} : { run }),
      ...(runAsync === undefined ? {} : { runAsync }),
    });
  }

  const bindings = context.bindings ?? { tools: [], upstreams: [] };
  const callTools = buildCallTools(skill, sname, bindings.tools, registry);
  const calls = new Map<string, CallTool[]>();
  for (const call of callTools) {
    // Keyed by the tool's own name and told apart by upstream: no name can stand for another upstream's.
    const same = calls.get(call.tool);
    if (same === undefined) calls.set(call.tool, [call]);
    else same.push(call);
    targets.set(call.definition.name, { kind: 'call', skill: skill.name, call });
  }
  const part = { calls: callTools, upstreams: bindings.upstreams };

  return {
    skill,
    ...(context.upstream === undefined ? {} : { upstream: context.upstream }),
    calls,
    usesUpstreams: bindings.upstreams.length > 0,
    pinned: context.isPinned(skill.name),
    sname,
    getInfoTool,
    tools: [...listed.map((t) => t.definition), ...callTools.map((c) => c.definition)],
    toolNames,
    getInfoText: getInfoText(skill, listed, part),
    loadSkillText: loadSkillText(skill, context.asyncEnabled, part),
    catalogInfoText: catalogInfoText(skill, schemas, context.asyncEnabled, part),
  };
}
