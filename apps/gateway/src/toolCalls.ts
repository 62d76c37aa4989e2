import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { RunnerError, type RunRequest } from '@skillgate/runner';
import type { Catalog, CatalogSkill, SkillFile, ToolView } from '@skillgate/skills';
import { GatewayError } from './gatewayError.js';
import type { GatewayRuntime, SessionContext } from './runtime.js';
import { parseArguments, type RunInput } from './toolArguments.js';
import { readSkillFile, runResultToTool, toolError } from './toolResults.js';

/** What a tool call may do besides returning: notify its own response stream. */
export interface CallExtras {
  readonly signal: AbortSignal;
  /** Sends tools/list_changed related to this request (so it travels on its response stream). */
  readonly notifyToolsChanged: () => Promise<void>;
}

/** The outcome label of a tool call for metrics and the audit log. */
export type CallOutcome = 'ok' | 'tool_error' | 'locked';

interface Call {
  readonly runtime: GatewayRuntime;
  readonly ctx: SessionContext;
  readonly catalog: Catalog;
  readonly view: ToolView;
  readonly name: string;
  readonly extras: CallExtras;
}

/** Runs one tools/call: resolves the name by map lookup, checks visibility, dispatches by kind. */
export async function callTool(
  runtime: GatewayRuntime,
  ctx: SessionContext,
  name: string,
  args: unknown,
  extras: CallExtras,
): Promise<{ result: CallToolResult; kind: string; outcome: CallOutcome }> {
  // One catalog snapshot per call: a reload during the call does not change what it runs.
  const catalog = runtime.catalogs.current;
  const view: ToolView = {
    disclosure: ctx.record.disclosure as ToolView['disclosure'],
    unlocked: await runtime.store.unlocked(ctx.record.scopeKey),
    allowed: runtime.policy.allowedSkills(ctx.principal, catalog),
  };
  const target = catalog.resolve(name);
  if (target === undefined) throw new GatewayError('UNKNOWN_TOOL', `Unknown tool: ${name}`);
  if (!catalog.isVisible(name, view)) {
    const lockedSkill =
      'skill' in target && target.kind !== 'get_info' ? catalog.skills.get(target.skill) : undefined;
    const usable =
      lockedSkill !== undefined && (view.allowed === undefined || view.allowed.has(lockedSkill.skill.name));
    if (usable && view.disclosure === 'namespaced') {
      return {
        kind: target.kind,
        outcome: 'locked',
        result: toolError(
          `Tool ${name} belongs to skill "${lockedSkill.skill.name}", which is locked in this session. ` +
            `Call ${lockedSkill.getInfoTool.name} first to read its instructions and unlock its tools.`,
        ),
      };
    }
    throw new GatewayError('UNKNOWN_TOOL', `Unknown tool: ${name}`);
  }
  const call: Call = { runtime, ctx, catalog, view, name, extras };
  const { schemas } = runtime;
  let result: CallToolResult;
  switch (target.kind) {
    case 'get_info': {
      parseArguments(schemas.none, name, args);
      result = await getInfo(call, requireSkill(catalog, target.skill), 'namespaced');
      break;
    }
    case 'read':
      parseArguments(schemas.none, name, args);
      result = await readSkillFile(target.skill, target.file, readLimits(runtime));
      break;
    case 'run':
      result = await runScript(call, target.skill, target.file, parseArguments(schemas.run, name, args));
      break;
    case 'run_async':
      result = await startJob(call, target.skill, target.file, parseArguments(schemas.runAsync, name, args));
      break;
    case 'get_async_status': {
      const input = parseArguments(schemas.jobStatus, name, args);
      result = jobResult(call, () => runtime.jobs.status(ctx.record.scopeKey, input.job_id, input.tail));
      break;
    }
    case 'cancel_async': {
      const input = parseArguments(schemas.jobCancel, name, args);
      result = jobResult(call, () => runtime.jobs.cancel(ctx.record.scopeKey, input.job_id));
      break;
    }
    case 'load_skill': {
      const input = parseArguments(schemas.loadSkill, name, args);
      const entry = findSkill(call, input.name);
      result = entry === undefined ? unknownSkill(call, input.name) : await getInfo(call, entry, 'universal');
      break;
    }
    case 'list_skill_files': {
      const input = parseArguments(schemas.listSkillFiles, name, args);
      const entry = findSkill(call, input.skill);
      result = entry === undefined ? unknownSkill(call, input.skill) : listFiles(entry);
      break;
    }
    case 'read_skill_file': {
      const input = parseArguments(schemas.readSkillFile, name, args);
      const found = findFile(call, input.skill, input.path);
      result =
        'error' in found ? found.error : await readSkillFile(input.skill, found.file, readLimits(runtime));
      break;
    }
    case 'run_skill_script': {
      const { skill, path, async: runAsync, ...input } = parseArguments(schemas.runSkillScript, name, args);
      const found = findFile(call, skill, path);
      if ('error' in found) result = found.error;
      else if (!found.file.isScript)
        result = toolError(`${path} is not a script: only files under scripts/ can be run.`);
      else if (runAsync === true && runtime.config.skills.async_enabled)
        result = await startJob(call, skill, found.file, input);
      else result = await runScript(call, skill, found.file, input);
      break;
    }
  }
  return { result, kind: target.kind, outcome: result.isError === true ? 'tool_error' : 'ok' };
}

const readLimits = (runtime: GatewayRuntime) => ({
  maxTextBytes: runtime.config.resources.max_text_bytes,
  maxBinaryBytes: runtime.config.resources.max_binary_bytes,
});

function requireSkill(catalog: Catalog, skill: string): CatalogSkill {
  const entry = catalog.skills.get(skill);
  if (entry === undefined) throw new GatewayError('UNKNOWN_TOOL', `Unknown skill: ${skill}`);
  return entry;
}

/** A skill the session's principal may use, by name (universal mode). */
function findSkill(call: Call, skill: string): CatalogSkill | undefined {
  const entry = call.catalog.skills.get(skill);
  if (entry === undefined) return undefined;
  return call.view.allowed === undefined || call.view.allowed.has(skill) ? entry : undefined;
}

function unknownSkill(call: Call, skill: string): CallToolResult {
  const names = [...call.catalog.skills.keys()].filter(
    (n) => call.view.allowed === undefined || call.view.allowed.has(n),
  );
  return toolError(`Unknown skill "${skill}". Available skills: ${names.join(', ') || '(none)'}.`);
}

/** Looks a file up by its exact catalog path, never by joining paths, so `..` tricks find nothing. */
function findFile(call: Call, skill: string, path: string): { file: SkillFile } | { error: CallToolResult } {
  const entry = findSkill(call, skill);
  if (entry === undefined) return { error: unknownSkill(call, skill) };
  const names = entry.toolNames.get(path);
  const target = names === undefined ? undefined : call.catalog.resolve(names.read);
  if (target === undefined || !('file' in target)) {
    return {
      error: toolError(`Skill "${skill}" has no file "${path}". Call list_skill_files to see its files.`),
    };
  }
  return { file: target.file };
}

async function getInfo(
  call: Call,
  entry: CatalogSkill,
  mode: 'namespaced' | 'universal',
): Promise<CallToolResult> {
  const { runtime, ctx } = call;
  const first = await runtime.store.unlock(ctx.record.scopeKey, entry.skill.name);
  if (first) {
    runtime.metrics.inc('skillgate_unlocks_total');
    // Only namespaced sessions see new tools after an unlock; one notification, on this request's stream.
    if (call.view.disclosure === 'namespaced') await call.extras.notifyToolsChanged();
  }
  return {
    content: [{ type: 'text', text: mode === 'universal' ? entry.loadSkillText : entry.getInfoText }],
  };
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

function runRequest(call: Call, skill: string, file: SkillFile, input: RunInput): RunRequest {
  const entry = requireSkill(call.catalog, skill);
  return {
    skillName: skill,
    skillDir: entry.skill.dir,
    scriptPath: file.absolutePath,
    executable: file.isExecutable,
    args: input.args,
    stdin: input.stdin,
    timeoutSeconds: input.timeout,
    tailLines: input.tail,
    principal: call.ctx.principal.name,
    signal: call.extras.signal,
  };
}

function runnerFailure(error: unknown): CallToolResult {
  if (error instanceof RunnerError) return toolError(`Script not run (${error.code}): ${error.message}`);
  throw error;
}

async function runScript(
  call: Call,
  skill: string,
  file: SkillFile,
  input: RunInput,
): Promise<CallToolResult> {
  const { metrics } = call.runtime;
  try {
    const result = await call.runtime.runner.run(runRequest(call, skill, file, input));
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
  input: RunInput,
): Promise<CallToolResult> {
  // The job outlives this request, so it must not be tied to the request's abort signal.
  const request = { ...runRequest(call, skill, file, input), signal: undefined };
  try {
    const { job_id } = await call.runtime.jobs.start(call.ctx.record.scopeKey, request);
    call.runtime.metrics.inc('skillgate_script_runs_total', { status: 'started_async' });
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
    return runnerFailure(error);
  }
}

function jobResult(call: Call, read: () => ReturnType<GatewayRuntime['jobs']['status']>): CallToolResult {
  try {
    const status = read();
    return {
      content: [{ type: 'text', text: JSON.stringify(status, null, 2) }],
      structuredContent: { ...status },
    };
  } catch (error) {
    if (error instanceof RunnerError && error.code === 'JOB_NOT_FOUND') {
      return toolError(`No job with that id in this ${call.runtime.config.sessions.scope}.`);
    }
    return runnerFailure(error);
  }
}
