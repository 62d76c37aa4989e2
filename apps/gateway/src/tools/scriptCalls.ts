import type { CallToolResult } from '@modelcontextprotocol/server';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import { RunnerError, type RunRequest, type RunResult, type ScriptRunner } from '@skillgate/runner';
import {
  type CatalogSkill,
  confirmFilePlace,
  type RunInput,
  type SkillFile,
  SkillsError,
} from '@skillgate/skills';
import { type JobStatus, StateError } from '@skillgate/state';
import { budgetIdOf } from '../auth/accessPolicy.js';
import { GatewayError } from '../errors/gatewayError.js';
import type { Tracing } from '../observability/tracing.js';
import type { Call } from './callTypes.js';
import { runResultToTool, toolError } from './toolResults.js';

/** A skill of the call's catalog snapshot, or UNKNOWN_TOOL (it was resolved from that same snapshot). */
export function requireSkill(call: Pick<Call, 'catalog'>, skill: string): CatalogSkill {
  const entry = call.catalog.skills.get(skill);
  if (entry === undefined) throw new GatewayError('UNKNOWN_TOOL', `Unknown skill: ${skill}`);
  return entry;
}

function runRequest(call: Call, skill: string, file: SkillFile, input: Partial<RunInput>): RunRequest {
  const entry = requireSkill(call, skill);
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
    principal: budgetIdOf(call.audience.principal),
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
export async function runScript(
  call: Call,
  skill: string,
  file: SkillFile,
  input: Partial<RunInput>,
): Promise<CallToolResult> {
  const { metrics } = call.parts;
  const misplaced = await misplacedScript(file);
  if (misplaced !== undefined) return misplaced;
  try {
    const request = runRequest(call, skill, file, input);
    const tracing = call.parts.tracing;
    const result =
      tracing === undefined
        ? await call.parts.runner.run(request)
        : await tracedRun(tracing, call.parts.runner, request, { skill, script: file.path });
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
export async function startJob(
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

/** skill_get_async_status / skill_cancel_async: the job's status, or why there is none. */
export async function jobResult(call: Call, read: Promise<JobStatus>): Promise<CallToolResult> {
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
