import { ConfigError } from '@skillgate/config';
import {
  createScriptRunner,
  probeSandbox,
  RunnerError,
  type SandboxMode,
  type ScriptRunner,
} from '@skillgate/runner';
import type { FastifyBaseLogger } from 'fastify';
import type { GatewaySettings } from './gatewaySettings.js';

/** Options of startScripts. */
export interface StartScriptsOptions {
  readonly scripts: GatewaySettings['scripts'];
  /** `scripts.sandbox`: what isolation was asked for. */
  readonly sandbox: SandboxMode;
  /** Names never passed to a script (token and OAuth secret variables). */
  readonly secretEnvNames: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly log: FastifyBaseLogger;
}

/**
 * Probes the sandbox, starts the script runner and says in the log how scripts will run: loudly when
 * bubblewrap was wanted (`auto`) and does not work here (docs/sandbox.md).
 */
export async function startScripts(options: StartScriptsOptions): Promise<ScriptRunner> {
  const { scripts, env, log } = options;
  const sandbox = await probeSandbox({
    mode: options.sandbox,
    network: scripts.network,
    searchPath: env.PATH ?? '',
  }).catch((error: unknown) => {
    // bwrap was asked for and does not work: a start-up error that names the key, like any config error.
    if (!(error instanceof RunnerError)) throw error;
    throw new ConfigError('CONFIG_INVALID', error.message, {
      issues: [{ path: 'scripts.sandbox', message: `${error.message} (docs/sandbox.md)` }],
      cause: error,
    });
  });
  const runner = createScriptRunner({
    ...scripts,
    envDeny: options.secretEnvNames,
    sourceEnv: env,
    sandbox,
  });
  const isolation = await runner.ready();
  if (isolation.sandbox === 'off' && isolation.requested === 'auto') {
    log.warn(
      { sandbox: isolation },
      `SCRIPTS RUN WITHOUT A SANDBOX: bubblewrap does not work on this host (${isolation.reason}). Scripts can read ` +
        "what the gateway's user can read and use the network. Fix it (docs/sandbox.md) or set scripts.sandbox: off.",
    );
  } else {
    log.info(
      { sandbox: isolation },
      `scripts run ${isolation.sandbox === 'bwrap' ? 'in bubblewrap' : 'unsandboxed'}`,
    );
  }
  return runner;
}
