import type { CallToolResult } from '@modelcontextprotocol/server';
import { RunnerError, type RunProgress, type RunRequest, type ScriptRunner } from '@skillgate/runner';
import {
  type CallTool,
  type Catalog,
  type CatalogSkill,
  confirmFilePlace,
  type RunInput,
  type SkillFile,
  SkillsError,
  type ToolKind,
  type ToolTarget,
} from '@skillgate/skills';
import { type JobRegistry, type JobStatus, type SessionStore, StateError } from '@skillgate/state';
import type { z } from 'zod';
import type { Audience, DisclosurePolicy } from '../disclosure/disclosurePolicy.js';
import { GatewayError } from '../errors/gatewayError.js';
import type { Metrics } from '../observability/metrics.js';
import type { CatalogSource } from '../reload/catalogSource.js';
import { type ReadLimits, readSkillFile, runResultToTool, toolError } from './toolResults.js';
import {
  callUpstream,
  type UpstreamCaller,
  type UpstreamCallLabels,
  type UpstreamProgress,
} from './upstreamCalls.js';

/** What tool calls work with, built once by the composition root (createGateway.ts). */
export interface ToolCallParts {
  readonly catalogs: Pick<CatalogSource, 'current'>;
  /** Who may call what; get_info's text and unlock effect. */
  readonly disclosure: DisclosurePolicy;
  /** Where get_info records an unlock. */
  readonly unlocks: Pick<SessionStore, 'unlock'>;
  readonly runner: Pick<ScriptRunner, 'run'>;
  /** Async jobs (run_async tools, skill_get_async_status, skill_cancel_async). */
  readonly jobs: Pick<JobRegistry, 'start' | 'status' | 'cancel'>;
  /** Calls to upstream MCP servers; absent when none is configured (docs/upstreams.md). */
  readonly upstreams?: UpstreamCaller;
  readonly metrics: Metrics;
  /** Bounds of read tools (`resources.*`). */
  readonly readLimits: ReadLimits;
}

/** What a tool call may do besides returning: notify its own response stream. */
export interface CallExtras {
  readonly signal: AbortSignal;
  /** Sends tools/list_changed related to this request (so it travels on its response stream). */
  readonly notifyToolsChanged: () => Promise<void>;
  /** Reports a running script's progress, when the caller asked for it with a progressToken. */
  readonly reportProgress?: (progress: RunProgress) => void;
  /** Passes an upstream's progress on as it came, when the caller asked for it with a progressToken. */
  readonly forwardProgress?: (progress: UpstreamProgress) => void;
}

/** The outcome label of a tool call for metrics and the audit log. */
export type CallOutcome = 'ok' | 'tool_error' | 'locked';

/** A finished tool call, with the labels metrics and the audit log use. */
export interface CallDone {
  readonly result: CallToolResult;
  readonly kind: ToolKind;
  readonly outcome: CallOutcome;
  /** Set for calls of upstream tools: what the audit line names. */
  readonly upstream?: UpstreamCallLabels;
}

/** One resolved call: the catalog snapshot it runs against, who called, and what. */
interface Call {
  readonly parts: ToolCallParts;
  readonly audience: Audience;
  readonly catalog: Catalog;
  readonly name: string;
  readonly extras: CallExtras;
  /** Filled by an upstream call with what the audit line names. */
  readonly audit: { upstream?: UpstreamCallLabels };
}

type Handler<K extends ToolKind> = (
  call: Call,
  target: ToolTarget & { readonly kind: K },
  args: unknown,
) => Promise<CallToolResult>;

/**
 * Runs one tools/call: the name is resolved once, the disclosure policy decides whether the caller may
 * call it, and the handler of its kind validates the arguments once and does the work. Unknown tools and
 * bad arguments throw GatewayError (JSON-RPC errors); everything a model can act on is a tool result.
 */
export async function callTool(
  parts: ToolCallParts,
  audience: Audience,
  name: string,
  args: unknown,
  extras: CallExtras,
): Promise<CallDone> {
  // One catalog snapshot per call: a reload during the call does not change what it runs.
  const catalog = parts.catalogs.current;
  const decision = await parts.disclosure.decideCall(catalog, audience, name);
  if (decision.kind === 'unknown') throw new GatewayError('UNKNOWN_TOOL', `Unknown tool: ${name}`);
  if (decision.kind === 'locked') {
    const { skill } = decision;
    return {
      kind: catalog.resolve(name)?.kind ?? 'read',
      outcome: 'locked',
      result: toolError(
        `Tool ${name} belongs to skill "${skill.skill.name}", which is locked in this session. ` +
          `Call ${skill.getInfoTool.name} first to read its instructions and unlock its tools.`,
      ),
    };
  }
  const call: Call = { parts, audience, catalog, name, extras, audit: {} };
  const { target } = decision;
  const handler = HANDLERS[target.kind] as Handler<typeof target.kind>;
  const result = await handler(call, target, args);
  return {
    result,
    kind: target.kind,
    outcome: result.isError === true ? 'tool_error' : 'ok',
    ...(call.audit.upstream === undefined ? {} : { upstream: call.audit.upstream }),
  };
}

/** Parses tool arguments or throws INVALID_ARGUMENTS naming each bad field. */
function parseArguments<T>(schema: z.ZodType<T>, toolName: string, input: unknown): T {
  // An omitted `arguments` is an empty object; anything else (null, an array) must be an object.
  const result = schema.safeParse(input === undefined ? {} : input);
  if (result.success) return result.data;
  const details = result.error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'arguments'}: ${issue.message}`)
    .join('; ');
  throw new GatewayError('INVALID_ARGUMENTS', `Invalid arguments for tool ${toolName}: ${details}`);
}

const inputs = (call: Call) => call.catalog.inputs.validators;

const HANDLERS: { readonly [K in ToolKind]: Handler<K> } = {
  async get_info(call, target, args) {
    parseArguments(inputs(call).none, call.name, args);
    return skillInfo(call, requireSkill(call.catalog, target.skill));
  },
  async read(call, target, args) {
    parseArguments(inputs(call).none, call.name, args);
    return readSkillFile(target.skill, target.file, call.parts.readLimits, call.catalog.fileCache);
  },
  async run(call, target, args) {
    return runScript(call, target.skill, target.file, parseArguments(inputs(call).run, call.name, args));
  },
  async run_async(call, target, args) {
    return startJob(call, target.skill, target.file, parseArguments(inputs(call).runAsync, call.name, args));
  },
  async get_async_status(call, _target, args) {
    const input = parseArguments(inputs(call).jobStatus, call.name, args);
    return jobResult(call, call.parts.jobs.status(call.audience.scopeKey, input.job_id, input.tail));
  },
  async cancel_async(call, _target, args) {
    const input = parseArguments(inputs(call).jobCancel, call.name, args);
    return jobResult(call, call.parts.jobs.cancel(call.audience.scopeKey, input.job_id));
  },
  async load_skill(call, _target, args) {
    const input = parseArguments(inputs(call).loadSkill, call.name, args);
    const entry = usable(call, input.name);
    return entry === undefined ? unknownSkill(call, input.name) : skillInfo(call, entry);
  },
  async list_skill_files(call, _target, args) {
    const input = parseArguments(inputs(call).listSkillFiles, call.name, args);
    const entry = usable(call, input.skill);
    return entry === undefined ? unknownSkill(call, input.skill) : listFiles(entry);
  },
  async read_skill_file(call, _target, args) {
    const input = parseArguments(inputs(call).readSkillFile, call.name, args);
    const found = findFile(call, input.skill, input.path);
    return 'error' in found
      ? found.error
      : readSkillFile(input.skill, found.file, call.parts.readLimits, call.catalog.fileCache);
  },
  async run_skill_script(call, _target, args) {
    const parsed = parseArguments(inputs(call).runSkillScript, call.name, args);
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
  async call(call, target, args) {
    const input = parseArguments(inputs(call).callArguments, call.name, args);
    return upstreamCall(call, target.skill, target.call, input);
  },
  async call_skill_tool(call, _target, args) {
    const input = parseArguments(inputs(call).callSkillTool, call.name, args);
    const entry = usable(call, input.skill);
    if (entry === undefined) return unknownSkill(call, input.skill);
    const found = entry.calls.get(input.tool);
    if (found === undefined) {
      const known = [...entry.calls.keys()];
      return toolError(
        `Skill "${input.skill}" has no upstream tool "${input.tool}". ${
          known.length === 0 ? 'It exposes none right now.' : `Its tools: ${known.join(', ')}.`
        }`,
      );
    }
    return upstreamCall(call, entry.skill.name, found, input.arguments ?? {});
  },
};

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
    signal: call.extras.signal,
    ...(call.extras.forwardProgress === undefined ? {} : { onProgress: call.extras.forwardProgress }),
  });
  call.audit.upstream = labels;
  return result;
}

function requireSkill(catalog: Catalog, skill: string): CatalogSkill {
  const entry = catalog.skills.get(skill);
  if (entry === undefined) throw new GatewayError('UNKNOWN_TOOL', `Unknown skill: ${skill}`);
  return entry;
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
  const effect = parts.disclosure.unlockEffect(audience);
  if (effect.record && (await parts.unlocks.unlock(audience.scopeKey, entry.skill.name))) {
    parts.metrics.inc('skillgate_unlocks_total');
    // One notification, on this request's stream, so clients without a GET stream get it too.
    if (effect.notify) await call.extras.notifyToolsChanged();
  }
  return { content: [{ type: 'text', text: parts.disclosure.infoText(entry, audience) }] };
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

function runRequest(call: Call, skill: string, file: SkillFile, input: Partial<RunInput>): RunRequest {
  const entry = requireSkill(call.catalog, skill);
  return {
    skillName: skill,
    // Real paths recorded at load: the sandbox binds the folder itself, not whatever a path leads to now.
    skillDir: entry.skill.realDir,
    scriptPath: file.absolutePath,
    executable: file.isExecutable,
    args: input.args,
    stdin: input.stdin,
    timeoutSeconds: input.timeout,
    tailLines: input.tail,
    principal: call.audience.principal.id,
    signal: call.extras.signal,
    ...(call.extras.reportProgress === undefined ? {} : { onProgress: call.extras.reportProgress }),
  };
}

/**
 * Why a script must not start: it is no longer a regular file where the catalog found it (a folder on its
 * way moved or swapped for a symlink), or undefined when it may.
 */
async function misplacedScript(file: SkillFile): Promise<CallToolResult | undefined> {
  try {
    await confirmFilePlace(file);
    return undefined;
  } catch (error) {
    if (!(error instanceof SkillsError)) throw error;
    const why =
      error.code === 'FILE_CHANGED' || error.code === 'FILE_NOT_REGULAR'
        ? 'it changed on disk since the skills catalog was loaded; try again after the reload'
        : `it cannot be read (${error.code})`;
    return toolError(`Script not run: ${file.path} ${why}.`);
  }
}

function runnerFailure(error: unknown): CallToolResult {
  if (error instanceof RunnerError) return toolError(`Script not run (${error.code}): ${error.message}`);
  throw error;
}

async function runScript(
  call: Call,
  skill: string,
  file: SkillFile,
  input: Partial<RunInput>,
): Promise<CallToolResult> {
  const { metrics } = call.parts;
  const misplaced = await misplacedScript(file);
  if (misplaced !== undefined) return misplaced;
  try {
    const result = await call.parts.runner.run(runRequest(call, skill, file, input));
    const status = result.timed_out
      ? 'timed_out'
      : result.exit_code === 0
        ? 'ok'
        : result.signal !== null
          ? 'killed'
          : 'nonzero';
    metrics.inc('skillgate_script_runs_total', { status });
    metrics.observeScriptDuration(result.duration_ms / 1000, { mode: 'sync' });
    return runResultToTool(result);
  } catch (error) {
    metrics.inc('skillgate_script_runs_total', {
      status: error instanceof RunnerError ? error.code.toLowerCase() : 'error',
    });
    return runnerFailure(error);
  }
}

async function startJob(
  call: Call,
  skill: string,
  file: SkillFile,
  input: Partial<RunInput>,
): Promise<CallToolResult> {
  const misplaced = await misplacedScript(file);
  if (misplaced !== undefined) return misplaced;
  // The job outlives this request, so it must not be tied to the request's abort signal.
  const { onProgress: _noProgress, ...base } = runRequest(call, skill, file, input);
  const request = { ...base, signal: undefined };
  try {
    const { job_id } = await call.parts.jobs.start(call.audience.scopeKey, request);
    call.parts.metrics.inc('skillgate_script_runs_total', { status: 'started_async' });
    return {
      content: [
        {
          type: 'text',
          text: `Started job ${job_id}. Poll it with skill_get_async_status { "job_id": "${job_id}" }.`,
        },
      ],
      structuredContent: { job_id, state: 'running' },
    };
  } catch (error) {
    return jobFailure(error);
  }
}

async function jobResult(call: Call, read: Promise<JobStatus>): Promise<CallToolResult> {
  try {
    const status = await read;
    return {
      content: [{ type: 'text', text: JSON.stringify(status, null, 2) }],
      structuredContent: { ...status },
    };
  } catch (error) {
    if (error instanceof StateError && error.code === 'JOB_NOT_FOUND') {
      const owner = call.audience.scopeKey.startsWith('principal:') ? 'principal' : 'session';
      return toolError(`No job with that id in this ${owner}.`);
    }
    return jobFailure(error);
  }
}

/**
 * A job that could not be started or read: the running cap is a tool result the model can act on; a shared
 * store that is away (or closed by a shutdown) is a JSON-RPC error, as it would be for any other request.
 */
function jobFailure(error: unknown): CallToolResult {
  if (!(error instanceof StateError)) return runnerFailure(error);
  if (error.code === 'JOB_LIMIT') return toolError(`Script not run (JOB_LIMIT): ${error.message}`);
  // Store outages, a full store and a closed one map as for any request (errors/toGatewayError.ts).
  throw error;
}
