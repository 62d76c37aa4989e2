import { join } from 'node:path';
import { buildSkillEntry } from '../extension/buildSkillEntry.js';
import type { SkillEntry, SkillResourceTarget, SkillsExtensionIndex } from '../extension/extensionTypes.js';
import { skillUri } from '../extension/skillUri.js';
import { createServedFileCache } from '../files/servedFileCache.js';
import type { Problem, Skill } from '../load/loadTypes.js';
import { globMatcher } from '../names/globMatcher.js';
import { createNameRegistry } from '../names/nameRegistry.js';
import { promptName } from '../names/promptName.js';
import { sanitizeName } from '../names/sanitizeName.js';
import { shortHash } from '../names/shortHash.js';
import {
  ASYNC_CANCEL_TOOL,
  ASYNC_STATUS_TOOL,
  CALL_SKILL_TOOL,
  LIST_SKILL_FILES_TOOL,
  LOAD_SKILL_TOOL,
  MIN_NAME_LENGTH,
  READ_SKILL_FILE_TOOL,
  RUN_SKILL_SCRIPT_TOOL,
  SEARCH_SKILLS_TOOL,
} from '../names/toolNames.js';
import { SkillsError } from '../skillsError.js';
import { bindSkillTools } from '../upstreams/upstreamBindings.js';
import { upstreamSkill } from '../upstreams/upstreamSkill.js';
import type { UpstreamSnapshot } from '../upstreams/upstreamTypes.js';
import { buildCatalogSkill } from './buildCatalogSkill.js';
import type { Catalog, CatalogOptions, CatalogSkill, SkillPrompt, ToolTarget } from './catalogTypes.js';
import { deepFreeze } from './deepFreeze.js';
import { buildSharedTools } from './sharedTools.js';
import { buildToolInputs, DEFAULT_ARGUMENT_LIMITS } from './toolInputs.js';
import { createToolViews } from './toolViews.js';

const FIXED_TOOLS: ReadonlyArray<[string, ToolTarget]> = [
  [LOAD_SKILL_TOOL, { kind: 'load_skill' }],
  [LIST_SKILL_FILES_TOOL, { kind: 'list_skill_files' }],
  [READ_SKILL_FILE_TOOL, { kind: 'read_skill_file' }],
  [RUN_SKILL_SCRIPT_TOOL, { kind: 'run_skill_script' }],
  [CALL_SKILL_TOOL, { kind: 'call_skill_tool' }],
  [SEARCH_SKILLS_TOOL, { kind: 'search_skills' }],
];
const ASYNC_TOOLS: ReadonlyArray<[string, ToolTarget]> = [
  [ASYNC_STATUS_TOOL, { kind: 'get_async_status' }],
  [ASYNC_CANCEL_TOOL, { kind: 'cancel_async' }],
];

function checkOptions(options: CatalogOptions): void {
  if (!Number.isInteger(options.maxNameLength) || options.maxNameLength < MIN_NAME_LENGTH) {
    throw new SkillsError('OPTION_INVALID', `maxNameLength must be an integer >= ${MIN_NAME_LENGTH}`);
  }
  if (!(options.maxTimeoutSeconds > 0) || !Number.isFinite(options.maxTimeoutSeconds)) {
    throw new SkillsError('OPTION_INVALID', 'maxTimeoutSeconds must be a positive number');
  }
}

/**
 * Builds the immutable tool catalog (docs/disclosure.md): every name, target, definition and text is computed
 * here once, so that tools/list and tools/call only look things up.
 */
export function createCatalog(skills: readonly Skill[], options: CatalogOptions): Catalog {
  const steps = catalogSteps(skills, options);
  for (let step = steps.next(); ; step = steps.next()) if (step.done === true) return step.value;
}

/** How long createCatalogInSlices computes before it lets other work run (one skill is well under 1 ms). */
const SLICE_MS = 20;

/**
 * The catalog createCatalog builds, built in slices of about 20 ms with the event loop free in between: a
 * reload of 1,000 skills took 1.5–1.9 s in one piece, during which no request of any client was served.
 */
export async function createCatalogInSlices(
  skills: readonly Skill[],
  options: CatalogOptions,
): Promise<Catalog> {
  const steps = catalogSteps(skills, options);
  let sliceStart = performance.now();
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done === true) return step.value;
    if (performance.now() - sliceStart < SLICE_MS) continue;
    await new Promise((resolve) => setImmediate(resolve));
    sliceStart = performance.now();
  }
}

/** The catalog build, pausing (yield) after each skill's share of the work. */
function* catalogSteps(skills: readonly Skill[], options: CatalogOptions): Generator<void, Catalog, void> {
  checkOptions(options);
  const { asyncEnabled } = options;
  const problems: Problem[] = [...(options.problems ?? [])];
  const registry = createNameRegistry(options.maxNameLength, problems);
  const inputs = buildToolInputs(
    { ...DEFAULT_ARGUMENT_LIMITS, ...options.argumentLimits, maxTimeoutSeconds: options.maxTimeoutSeconds },
    asyncEnabled,
  );
  const schemas = deepFreeze(inputs.schemas);
  const shared = deepFreeze(buildSharedTools(schemas, asyncEnabled));
  const targets = new Map<string, ToolTarget>();
  // Shared names are reserved even when async is off, so that toggling it never renames a skill tool.
  for (const [name] of [...FIXED_TOOLS, ...ASYNC_TOOLS]) registry.reserve(name, `shared tool ${name}`);
  for (const [name, target] of asyncEnabled ? [...FIXED_TOOLS, ...ASYNC_TOOLS] : FIXED_TOOLS) {
    targets.set(name, target);
  }

  const upstreams = upstreamsById(options.upstreams ?? [], problems);
  const entries = new Map<string, CatalogSkill>();
  const snameOwners = new Map<string, string>();
  const pins = (options.pinned ?? []).map(globMatcher);
  const isPinned = (name: string) => pins.some((matches) => matches(name));
  const context = { registry, schemas, asyncEnabled, targets, isPinned };
  for (const skill of skills) {
    if (entries.has(skill.name)) {
      problems.push(duplicateSkill(skill));
      continue;
    }
    const sname = uniqueSname(skill, snameOwners, problems);
    const bindings = bindSkillTools(skill, upstreams, problems);
    const entry = buildCatalogSkill(skill, sname, { ...context, bindings });
    entries.set(skill.name, deepFreeze(entry));
    yield;
  }
  // Auto skills come after folder skills, in config order: a folder skill keeps its name and tool names.
  for (const upstream of upstreams.values()) {
    if (upstream.skill !== 'auto') continue;
    const skill = upstreamSkill(upstream);
    if (entries.has(skill.name)) {
      problems.push(duplicateSkill(skill));
      continue;
    }
    const sname = uniqueSname(skill, snameOwners, problems);
    const bindings = { tools: upstream.tools.map((tool) => ({ upstream, tool })), upstreams: [upstream] };
    const entry = buildCatalogSkill(skill, sname, { ...context, bindings, upstream: upstream.id });
    entries.set(skill.name, deepFreeze(entry));
    yield;
  }
  for (const target of targets.values()) deepFreeze(target);

  const { listTools, access } = createToolViews({ entries, shared, schemas });
  const extension = yield* buildExtensionIndex(entries);
  const prompts = buildPrompts(entries, options.maxNameLength);

  return Object.freeze({
    skills: entries,
    problems: Object.freeze(problems),
    upstreams,
    asyncEnabled,
    inputs: Object.freeze(inputs),
    extension,
    prompts,
    fileCache: createServedFileCache(),
    resolve: (toolName: string) => targets.get(toolName),
    listTools,
    access,
  });
}

/**
 * The Skills extension's entries and URI table (docs/skills-extension.md), computed once: every served file
 * of every skill (SKILL.md included) under its one `skill://` spelling, so that a lookup is a Map get and a
 * path that was never served (`..`, absolute, excluded, differently encoded) names nothing.
 */
function* buildExtensionIndex(
  entries: ReadonlyMap<string, CatalogSkill>,
): Generator<void, SkillsExtensionIndex, void> {
  const problems: Problem[] = [];
  const published = new Map<string, SkillEntry>();
  const byUri = new Map<string, SkillResourceTarget>();
  for (const { skill, upstream } of entries.values()) {
    // An auto skill has no SKILL.md a native host could use: its tools need the gateway (docs/upstreams.md).
    if (upstream !== undefined) continue;
    const built = buildSkillEntry(skill);
    for (const { code, reason } of built.problems) {
      problems.push({
        severity: 'warning',
        code,
        file: skill.skillMd.absolutePath,
        skill: skill.name,
        reason,
      });
    }
    if (built.entry !== undefined) published.set(skill.name, deepFreeze(built.entry));
    for (const file of [skill.skillMd, ...skill.files]) {
      const uri = skillUri(skill.name, file.path);
      byUri.set(uri, Object.freeze({ skill: skill.name, uri, file }));
    }
    yield;
  }
  return Object.freeze({
    entries: published,
    problems: Object.freeze(problems),
    resolveUri: (uri: string) => byUri.get(uri),
  });
}

/** One prompt per skill, named within the tool-name budget (docs/skills-extension.md). */
function buildPrompts(
  entries: ReadonlyMap<string, CatalogSkill>,
  maxLength: number,
): ReadonlyMap<string, SkillPrompt> {
  const prompts = new Map<string, SkillPrompt>();
  for (const { skill, sname } of entries.values()) {
    let name = promptName(sname, skill.name, maxLength);
    for (let attempt = 2; prompts.has(name); attempt++)
      name = promptName(sname, skill.name, maxLength, attempt);
    prompts.set(
      name,
      Object.freeze({ name, skill: skill.name, description: skill.description, text: skill.body }),
    );
  }
  return prompts;
}

/** The snapshots by id, in config order; a repeated id (the config refuses it) keeps the first. */
function upstreamsById(
  list: readonly UpstreamSnapshot[],
  problems: Problem[],
): ReadonlyMap<string, UpstreamSnapshot> {
  const byId = new Map<string, UpstreamSnapshot>();
  for (const upstream of list) {
    if (byId.has(upstream.id)) {
      problems.push({
        severity: 'warning',
        code: 'NAME_CLASH',
        file: `upstream:${upstream.id}`,
        reason: `upstream "${upstream.id}" is configured twice; the first is used`,
      });
      continue;
    }
    byId.set(upstream.id, upstream);
    const dropped = upstream.dropped ?? [];
    if (dropped.length > 0) {
      const shown = dropped.slice(0, 5).map((d) => `${JSON.stringify(d.name)} (${d.reason})`);
      const more = dropped.length > shown.length ? ` and ${dropped.length - shown.length} more` : '';
      problems.push({
        severity: 'warning',
        code: 'UPSTREAM_TOOLS_DROPPED',
        file: `upstream:${upstream.id}`,
        reason: `upstream "${upstream.id}" lists ${dropped.length} tools the gateway leaves out: ${shown.join(', ')}${more}`,
      });
    }
  }
  return byId;
}

function duplicateSkill(skill: Skill): Problem {
  return {
    severity: 'warning',
    code: 'NAME_CLASH',
    file: join(skill.dir, 'SKILL.md'),
    field: 'name',
    skill: skill.name,
    reason: `skill "${skill.name}" is already in the catalog; this one is ignored`,
  };
}

/**
 * The skill's `sname`, made unique across the catalog: a skill that sanitizes like an earlier one gets a
 * hash of its own name appended, so all of its tools share one distinct prefix.
 */
function uniqueSname(skill: Skill, owners: Map<string, string>, problems: Problem[]): string {
  const wanted = sanitizeName(skill.name);
  let sname = wanted;
  for (let attempt = 1; owners.has(sname); attempt++) {
    sname = `${wanted}_${shortHash(attempt === 1 ? skill.name : `${skill.name}\0${attempt}`)}`;
  }
  if (sname !== wanted) {
    problems.push({
      severity: 'warning',
      code: 'TOOL_NAME_CLASH',
      file: join(skill.dir, 'SKILL.md'),
      field: 'name',
      skill: skill.name,
      reason: `skill "${skill.name}" sanitizes to "${wanted}" like skill "${owners.get(wanted)}"; its tools use "${sname}"`,
    });
  }
  owners.set(sname, skill.name);
  return sname;
}
