import type { CallToolResult } from '@modelcontextprotocol/server';
import {
  type CallTool,
  type Catalog,
  type CatalogSkill,
  INPUT_OF_KIND,
  type InputOf,
  LIST_ALL_QUERY,
  type SkillFile,
  type ToolKind,
  type ToolTarget,
} from '@skillgate/skills';
import type { UsageEvent } from '@skillgate/state';
import { budgetIdOf } from '../auth/accessPolicy.js';
import { createOwnedMemo } from '../core/catalogMemo.js';
import { renderOnce } from '../core/renderedJson.js';
import type { Audience } from '../disclosure/disclosurePolicy.js';
import { GatewayError } from '../errors/gatewayError.js';
import type { UsageMark } from '../observability/usageCounter.js';
import type { Call, CallExtras, CalledTool, ToolCallOptions } from './callTypes.js';
import { parseArguments } from './parseArguments.js';
import { jobResult, requireSkill, runScript, startJob } from './scriptCalls.js';
import { searchSkills } from './searchCalls.js';
import { readSkillFile, toolError } from './toolResults.js';
import { callUpstream, type UpstreamCallLabels } from './upstreamCalls.js';

/** The outcome label of a tool call for metrics and the audit log. */
export type CallOutcome = 'ok' | 'tool_error' | 'locked';

/** A finished tool call, with the labels metrics and the audit log use. */
export interface CallDone {
  readonly result: CallToolResult;
  readonly kind: ToolKind;
  readonly outcome: CallOutcome;
  /** Set for calls of upstream tools: what the audit line names. */
  readonly upstream?: UpstreamCallLabels;
  /** What the call adds to skill usage, when it used a catalog skill or searched in vain. */
  readonly usage?: UsageMark;
}

type Handler<K extends ToolKind> = (
  call: Call,
  target: ToolTarget & { readonly kind: K },
  input: InputOf<K>,
) => Promise<CallToolResult>;

/**
 * Runs one tools/call of a name resolved once (CalledTool): the disclosure policy decides whether the caller may
 * call it, the arguments are validated once with its kind's input contract (INPUT_OF_KIND, the same map the
 * advertised schemas come from), and the handler of its kind does the work. Unknown tools and
 * bad arguments throw GatewayError (JSON-RPC errors); everything a model can act on is a tool result.
 */
export async function callTool(
  parts: ToolCallOptions,
  audience: Audience,
  called: CalledTool,
  args: unknown,
  extras: CallExtras,
): Promise<CallDone> {
  const { name, catalog } = called;
  const decision = await parts.disclosure.decideCall(catalog, audience, called.target);
  if (decision.kind === 'unknown') throw new GatewayError('UNKNOWN_TOOL', `Unknown tool: ${name}`);
  if (decision.kind === 'locked') {
    const { skill } = decision;
    return {
      kind: decision.target.kind,
      outcome: 'locked',
      result: toolError(
        `Tool ${name} belongs to skill "${skill.skill.name}", which is locked in this session. ` +
          `Call ${skill.getInfoTool.name} first to read its instructions and unlock its tools.`,
      ),
    };
  }
  const call: Call = { parts, audience, catalog, name, extras, audit: {} };
  const { target } = decision;
  if (decision.used !== undefined) await parts.unlocks.use(audience.scopeKey, decision.used);
  const validator = catalog.inputs.validators[INPUT_OF_KIND[target.kind]];
  const input = parseArguments<InputOf<typeof target.kind>>(validator, name, args);
  const handler = HANDLERS[target.kind] as Handler<typeof target.kind>;
  const result = await handler(call, target, input);
  const usage = usageOf(catalog, target, input, result);
  return {
    result,
    kind: target.kind,
    outcome: result.isError === true ? 'tool_error' : 'ok',
    ...(call.audit.upstream === undefined ? {} : { upstream: call.audit.upstream }),
    ...(usage === undefined ? {} : { usage }),
  };
}

// The usage event of each kind that uses one skill; search_skills is counted only when it found nothing.
const USAGE_OF_KIND: Partial<Record<ToolKind, UsageEvent | 'run'>> = {
  get_info: 'info',
  load_skill: 'info',
  read: 'read',
  read_skill_file: 'read',
  run: 'run',
  run_async: 'run',
  run_skill_script: 'run',
  call: 'upstream',
  call_skill_tool: 'upstream',
};

/**
 * What a finished call adds to skill usage: only skills of the catalog are counted (so the metric's skill
 * label is bounded by it); a run is ok, error, or limit (timed out or stopped by a scripts.limits key).
 */
function usageOf(
  catalog: Catalog,
  target: ToolTarget,
  input: unknown,
  result: CallToolResult,
): UsageMark | undefined {
  if (target.kind === 'search_skills') {
    const found = (result.structuredContent as { results?: readonly unknown[] } | undefined)?.results;
    const query = (input as { query?: unknown }).query;
    return found?.length === 0 && typeof query === 'string' && query.trim() !== LIST_ALL_QUERY
      ? { emptySearch: query }
      : undefined;
  }
  const event = USAGE_OF_KIND[target.kind];
  if (event === undefined) return undefined;
  const fields = input as { name?: unknown; skill?: unknown };
  const skill = 'skill' in target ? target.skill : target.kind === 'load_skill' ? fields.name : fields.skill;
  if (typeof skill !== 'string' || !catalog.skills.has(skill)) return undefined;
  if (event !== 'run') return { skill, event };
  const run = result.structuredContent as { timed_out?: boolean; limit_exceeded?: string } | undefined;
  if (run?.timed_out === true || run?.limit_exceeded !== undefined) return { skill, event: 'run_limit' };
  return { skill, event: result.isError === true ? 'run_error' : 'run_ok' };
}

const HANDLERS: { readonly [K in ToolKind]: Handler<K> } = {
  async get_info(call, target) {
    return skillInfo(call, requireSkill(call, target.skill));
  },
  async read(call, target) {
    return readSkillFile(target.skill, target.file, call.parts.readLimits, call.catalog.fileCache);
  },
  async run(call, target, input) {
    return runScript(call, target.skill, target.file, input);
  },
  async run_async(call, target, input) {
    return startJob(call, target.skill, target.file, input);
  },
  async get_async_status(call, _target, input) {
    return jobResult(call, call.parts.jobs.status(call.audience.scopeKey, input.job_id, input.tail));
  },
  async cancel_async(call, _target, input) {
    return jobResult(call, call.parts.jobs.cancel(call.audience.scopeKey, input.job_id));
  },
  async load_skill(call, _target, input) {
    const entry = usable(call, input.name);
    return entry === undefined ? unknownSkill(call, input.name) : skillInfo(call, entry);
  },
  async search_skills(call, _target, input) {
    return searchSkills(call, input);
  },
  async list_skill_files(call, _target, input) {
    const entry = usable(call, input.skill);
    return entry === undefined ? unknownSkill(call, input.skill) : listFiles(entry);
  },
  async read_skill_file(call, _target, input) {
    const found = findFile(call, input.skill, input.path);
    return 'error' in found
      ? found.error
      : readSkillFile(input.skill, found.file, call.parts.readLimits, call.catalog.fileCache);
  },
  async run_skill_script(call, _target, parsed) {
    const { skill, path, ...rest } = parsed;
    const { async: runAsync, ...input } = rest as typeof rest & { async?: boolean };
    const found = findFile(call, skill, path);
    if ('error' in found) return found.error;
    if (!found.file.isScript)
      return toolError(`${path} is not a script: only files under scripts/ can be run.`);
    return runAsync === true
      ? startJob(call, skill, found.file, input)
      : runScript(call, skill, found.file, input);
  },
  async call(call, target, input) {
    return upstreamCall(call, target.skill, target.call, input);
  },
  async call_skill_tool(call, _target, input) {
    const entry = usable(call, input.skill);
    if (entry === undefined) return unknownSkill(call, input.skill);
    const found = findCall(entry.calls, input);
    if (typeof found === 'string') return toolError(`Skill "${input.skill}" ${found}`);
    return upstreamCall(call, entry.skill.name, found, input.arguments ?? {});
  },
};

/**
 * The call tool a call_skill_tool call names, or why none: the upstream is compared as its own argument,
 * never parsed out of the tool name (an upstream chooses its tool names and could imitate another's).
 */
function findCall(
  calls: ReadonlyMap<string, readonly CallTool[]>,
  input: { readonly tool: string; readonly upstream?: string | undefined },
): CallTool | string {
  const same = calls.get(input.tool) ?? [];
  const found =
    input.upstream === undefined
      ? same.length === 1
        ? same[0]
        : undefined
      : same.find((c) => c.upstream === input.upstream);
  if (found !== undefined) return found;
  if (input.upstream === undefined && same.length > 1) {
    const from = same.map((c) => JSON.stringify(c.upstream)).join(', ');
    return `has a tool "${input.tool}" of several MCP servers (${from}): pass "upstream" as its instructions print.`;
  }
  const known = [...calls.values()]
    .flat()
    .map((c) => (c.needsUpstream ? `${c.tool} (upstream ${c.upstream})` : c.tool));
  const of = input.upstream === undefined ? '' : ` of upstream "${input.upstream}"`;
  return `has no upstream tool "${input.tool}"${of}. ${
    known.length === 0 ? 'It exposes none right now.' : `Its tools: ${known.join(', ')}.`
  }`;
}

async function upstreamCall(
  call: Call,
  skill: string,
  target: CallTool,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  const { result, labels } = await callUpstream({
    upstreams: call.parts.upstreams,
    skill,
    call: target,
    args,
    principal: budgetIdOf(call.audience.principal),
    signal: call.extras.signal,
    ...(call.extras.forwardProgress === undefined ? {} : { onProgress: call.extras.forwardProgress }),
    ...(call.parts.tracing === undefined ? {} : { tracing: call.parts.tracing }),
  });
  call.audit.upstream = labels;
  return result;
}

const usable = (call: Call, skill: string) =>
  call.parts.disclosure.usableSkill(call.catalog, call.audience.principal, skill);

function unknownSkill(call: Call, skill: string): CallToolResult {
  const names = call.parts.disclosure.usableSkillNames(call.catalog, call.audience.principal);
  return toolError(`Unknown skill "${skill}". Available skills: ${names.join(', ') || '(none)'}.`);
}

/** Looks a file up by its exact catalog path, never by joining paths, so `..` tricks find nothing. */
function findFile(call: Call, skill: string, path: string): { file: SkillFile } | { error: CallToolResult } {
  const entry = usable(call, skill);
  if (entry === undefined) return { error: unknownSkill(call, skill) };
  const names = entry.toolNames.get(path);
  const target = names === undefined ? undefined : call.catalog.resolve(names.read);
  if (target === undefined || !('file' in target)) {
    return { error: toolError(`Skill "${skill}" has no file "${path}". Its instructions list its files.`) };
  }
  return { file: target.file };
}

/** get_info / load_skill: the skill's instructions for this audience, unlocking where that matters. */
async function skillInfo(call: Call, entry: CatalogSkill): Promise<CallToolResult> {
  const { parts, audience } = call;
  const effect = parts.disclosure.unlockEffect(call.catalog, audience);
  if (
    effect.record &&
    (await parts.unlocks.unlock(audience.scopeKey, entry.skill.name, effect.limit)).added
  ) {
    // Under tools.max_listed the unlock may have dropped the least recently used skills: still one list_changed.
    parts.metrics.inc('skillgate_unlocks_total');
    // One notification, on this request's stream, so clients without a GET stream get it too.
    if (effect.notify) await call.extras.notifyToolsChanged();
  }
  return infoResult(entry, parts.disclosure.infoText(call.catalog, entry, audience));
}

// get_info results per skill entry and text (one per disclosure mode): the same for every call until the
// catalog changes, so each is built once and written as JSON once (mcp/renderedJson.ts).
const infoResults = createOwnedMemo<CatalogSkill, string, CallToolResult>();

function infoResult(entry: CatalogSkill, text: string): CallToolResult {
  return infoResults(entry, text, () => renderOnce({ content: [{ type: 'text' as const, text }] }));
}

function listFiles(entry: CatalogSkill): CallToolResult {
  const files = entry.skill.files.map((f) => ({
    path: f.path,
    size: f.size,
    script: f.isScript,
    mime_type: f.mimeType,
  }));
  const text = files.map((f) => `${f.path} (${f.size} bytes${f.script ? ', script' : ''})`).join('\n');
  return {
    content: [{ type: 'text', text: text || '(no files)' }],
    structuredContent: { skill: entry.skill.name, files },
  };
}
