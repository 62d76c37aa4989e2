import { ConfigError, isLoopbackHost } from '@skillgate/config';
import {
  createScriptRunner,
  probeSandbox,
  RunnerError,
  type SandboxMode,
  type SandboxStatus,
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
  /** The address the gateway binds (`server.host`): beyond loopback, `auto` never falls back to no sandbox. */
  readonly host: string;
}

/** The started runner and the sandbox found, which stdio upstreams run in too. */
export interface StartedScripts {
  readonly runner: ScriptRunner;
  readonly sandbox: SandboxStatus;
}

// What an unsandboxed process of the gateway's user can read: the start-up warning says it plainly.
const UNSANDBOXED_READS =
  "Scripts and stdio upstreams then run as the gateway's user and can read the gateway's whole environment " +
  'through /proc/<gateway pid>/environ (every bearer token, OAuth secret and upstream credential in it), ' +
  "every file that user can read (the config, token files, its home, every skill folder), the gateway's " +
  'and its other processes, and they can use the network.';

/**
 * Probes the sandbox, starts the script runner and says in the log how scripts and stdio upstreams will run:
 * a warning naming what they can read whenever they run unsandboxed (docs/sandbox.md).
 */
export async function startScripts(options: StartScriptsOptions): Promise<StartedScripts> {
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
  // Reachable from the network, an unsandboxed script sits next to every secret of the gateway: `auto` does
  // not choose that silently there; only an explicit `off` does (docs/sandbox.md).
  if (isolation.sandbox === 'off' && isolation.requested === 'auto' && !isLoopbackHost(options.host)) {
    await runner.close();
    const message = `bubblewrap does not work on this host (${isolation.reason}) and the gateway binds ${options.host}, beyond loopback: scripts would run unsandboxed. Fix bubblewrap (docs/sandbox.md) or set scripts.sandbox: off to accept that`;
    throw new ConfigError('CONFIG_INVALID', message, { issues: [{ path: 'scripts.sandbox', message }] });
  }
  if (isolation.sandbox === 'off' && isolation.requested === 'auto') {
    log.warn(
      { sandbox: isolation },
      `SCRIPTS AND STDIO UPSTREAMS RUN WITHOUT A SANDBOX: bubblewrap does not work on this host (${isolation.reason}). ` +
        `${UNSANDBOXED_READS} Fix it (docs/sandbox.md) or set scripts.sandbox: off.`,
    );
  } else if (isolation.sandbox === 'off') {
    log.warn(
      { sandbox: isolation },
      `SCRIPTS AND STDIO UPSTREAMS RUN WITHOUT A SANDBOX (scripts.sandbox: off). ${UNSANDBOXED_READS}`,
    );
  } else {
    log.info({ sandbox: isolation }, 'scripts and stdio upstreams run in bubblewrap');
  }
  return { runner, sandbox };
}
