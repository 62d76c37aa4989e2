import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/server';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import type { JobRegistry, JobStatus } from '@skillgate/jobs';
import { RunnerError, type RunRequest, type RunResult, type ScriptRunner } from '@skillgate/runner';
import { confirmFilePlace, type RunInput, type SkillFile, SkillsError } from '@skillgate/skills';
import { StateError } from '@skillgate/state';
import { budgetIdOf } from '../auth/accessPolicy.js';
import type { Metrics } from '../observability/metrics.js';
import type { Tracing } from '../observability/tracing.js';
import { askToConnect, type CallCredentials, credentialRefusal } from './callCredentials.js';
import type { KindHandlers } from './kindHandler.js';
import { findFile, requireSkill, type SkillLookup } from './skillLookup.js';
import type { ToolCall } from './toolCall.js';
import { runResultToTool, toolError } from './toolResults.js';

/** What the script and job kinds use. */
export interface ScriptServices {
  /** Which skills the caller may use (run_skill_script names one in its arguments). */
  readonly disclosure: SkillLookup;
  readonly runner: Pick<ScriptRunner, 'run' | 'start'>;
  /** Async jobs (run_async tools, skill_get_async_status, skill_cancel_async). */
  readonly jobs: Pick<JobRegistry, 'start' | 'status' | 'cancel'>;
  readonly metrics: Pick<Metrics, 'inc' | 'observeScriptDuration'>;
  /** Spans of script runs; absent when tracing is off. */
  readonly tracing?: Tracing;
  /** The caller's own credentials a skill's scripts get (`scripts.credentials`); absent when none is mapped. */
  readonly credentials?: CallCredentials;
}

/** What a run needs before it starts: the caller's credentials, or the answer it gets instead. */
type RunCredentials =
  | { readonly ready: Readonly<Record<string, string>> | undefined }
  | { readonly answer: CallToolResult | InputRequiredResult };

/**
 * The caller's credentials for a skill's scripts: none mapped, the variables, or (the caller lacks one) the
 * connect answer or refusal in place of the run — which then does not start.
 */
async function runCredentials(
  services: ScriptServices,
  call: ToolCall,
  skill: string,
): Promise<RunCredentials> {
  const { credentials } = services;
  if (credentials === undefined) return { ready: undefined };
  const lookup = await credentials.scriptEnv({
    target: skill,
    principal: call.audience.principal,
    callerToken: undefined,
    tool: call.name,
  });
  if (lookup.kind === 'connect') return { answer: await askToConnect(credentials, call, lookup.need) };
  if (lookup.kind === 'refused') return { answer: credentialRefusal(lookup) };
  return { ready: Object.keys(lookup.values).length === 0 ? undefined : lookup.values };
}

/** The run and job kinds: a script run now or as a job, a job's status, its cancellation. */
export function scriptCalls(
  services: ScriptServices,
): Pick<KindHandlers, 'run' | 'run_async' | 'get_async_status' | 'cancel_async' | 'run_skill_script'> {
  return {
    async run(call, target, input) {
      return runScript(services, call, target.skill, target.file, input);
    },
    async run_async(call, target, input) {
      return startJob(services, call, target.skill, target.file, input);
    },
    async get_async_status(call, _target, input) {
      return jobResult(call, services.jobs.status(call.audience.scopeKey, input.job_id, input.tail));
    },
    async cancel_async(call, _target, input) {
      return jobResult(call, services.jobs.cancel(call.audience.scopeKey, input.job_id));
    },
    async run_skill_script(call, _target, parsed) {
      const { skill, path, ...rest } = parsed;
      const { async: runAsync, ...input } = rest as typeof rest & { async?: boolean };
      const found = findFile(services.disclosure, call, skill, path);
      if ('error' in found) return found.error;
      if (!found.file.isScript)
        return toolError(`${path} is not a script: only files under scripts/ can be run.`);
      return runAsync === true
        ? startJob(services, call, skill, found.file, input)
        : runScript(services, call, skill, found.file, input);
    },
  };
}

function runRequest(
  call: ToolCall,
  skill: string,
  file: SkillFile,
  input: Partial<RunInput>,
  credentials: Readonly<Record<string, string>> | undefined,
): RunRequest {
  const entry = requireSkill(call, skill);
  return {
    ...(credentials === undefined ? {} : { credentials }),
    skillName: skill,
    // Real paths recorded at load: the sandbox binds the folder itself, not whatever a path leads to now.
    skillDir: entry.skill.realDir,
    scriptPath: file.absolutePath,
    executable: file.isExecutable,
    args: input.args,
    stdin: input.stdin,
    timeoutSeconds: input.timeout,
    tailLines: input.tail,
    principal: budgetIdOf(call.audience.principal),
    signal: call.signal,
    ...(call.progress === undefined ? {} : { onProgress: call.progress.reportRun }),
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

/**
 * A run in spans: `script <skill>` with `script set-up` (waiting for a slot, the sandbox and the spawn) and
 * `script run` (the process until it and its group are gone) beneath it. Arguments are never recorded.
 */
async function tracedRun(
  tracing: Tracing,
  runner: Pick<ScriptRunner, 'start'>,
  request: RunRequest,
  names: { readonly skill: string; readonly script: string },
): Promise<RunResult> {
  return tracing.inSpan(
    `script ${names.skill}`,
    { 'skillgate.skill.name': names.skill, 'skillgate.script': names.script },
    async (span) => {
      const script = await tracing.inSpan('script set-up', {}, () => runner.start(request));
      const result = await tracing.inSpan('script run', {}, () => script.done);
      span.setAttributes({
        'skillgate.script.exit_code': result.exit_code ?? -1,
        'skillgate.script.timed_out': result.timed_out,
      });
      if (result.exit_code !== 0)
        span.setAttribute(ATTR_ERROR_TYPE, result.timed_out ? 'timeout' : 'nonzero_exit');
      return result;
    },
  );
}

/** A run tool (or run_skill_script): runs the script now and returns its result. */
async function runScript(
  services: ScriptServices,
  call: ToolCall,
  skill: string,
  file: SkillFile,
  input: Partial<RunInput>,
): Promise<CallToolResult | InputRequiredResult> {
  const { metrics, runner, tracing } = services;
  const misplaced = await misplacedScript(file);
  if (misplaced !== undefined) return misplaced;
  const credentials = await runCredentials(services, call, skill);
  if ('answer' in credentials) return credentials.answer;
  try {
    const request = runRequest(call, skill, file, input, credentials.ready);
    const result =
      tracing === undefined
        ? await runner.run(request)
        : await tracedRun(tracing, runner, request, { skill, script: file.path });
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

/** A run_async tool (or run_skill_script with async): starts a job and returns its id. */
async function startJob(
  services: ScriptServices,
  call: ToolCall,
  skill: string,
  file: SkillFile,
  input: Partial<RunInput>,
): Promise<CallToolResult | InputRequiredResult> {
  const misplaced = await misplacedScript(file);
  if (misplaced !== undefined) return misplaced;
  const credentials = await runCredentials(services, call, skill);
  if ('answer' in credentials) return credentials.answer;
  // The job outlives this request, so it must not be tied to the request's abort signal.
  const { onProgress: _noProgress, ...base } = runRequest(call, skill, file, input, credentials.ready);
  const request = { ...base, signal: undefined };
  try {
    const { job_id } = await services.jobs.start(call.audience.scopeKey, request);
    services.metrics.inc('skillgate_script_runs_total', { status: 'started_async' });
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

/** skill_get_async_status / skill_cancel_async: the job's status, or why there is none. */
async function jobResult(call: ToolCall, read: Promise<JobStatus>): Promise<CallToolResult> {
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
