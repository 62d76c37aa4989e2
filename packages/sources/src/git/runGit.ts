import { spawn } from 'node:child_process';
import { SourcesError } from '../sourcesError.js';
import { gitFolderBytes } from './gitFolderBytes.js';

/** Options of runGit. */
export interface RunGitOptions {
  /** The source the run is for (named in errors). */
  readonly source: string;
  /** Repository URL: `-c` settings that allow file URLs or carry a token are scoped to it. */
  readonly url: string;
  /** Token sent as HTTP basic `x-access-token:<token>`, to `url` only. */
  readonly token?: string;
  readonly cwd: string;
  /** Absolute deadline (ms since the epoch) the run is killed at. */
  readonly deadline: number;
  /** Variables passed on from the gateway's environment (PATH, proxies, ssh agent). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** A byte cap on what the run writes into a repository folder (a fetch, a checkout); none for ls-remote. */
  readonly diskCap?: DiskCap;
}

/** The bytes git may write under `dir`: `maxBytes` of checkout, and as much again (plus metadata) under `.git`. */
export interface DiskCap {
  readonly dir: string;
  readonly maxBytes: number;
}

// What git may see of the gateway's environment: enough to find itself, reach a proxy and use an ssh agent.
const PASSED = ['PATH', 'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy'];
const PASSED_SSH = ['SSH_AUTH_SOCK'];
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;
// Room under `.git` beyond the cap for git's own files: the index, pack indexes, the trees of the whole commit.
const GIT_METADATA_BYTES = 4 * 1024 * 1024;
// How often the folder is measured while git writes it; a single file is held at the cap by the kernel instead.
const POLL_MS = 100;

/** The largest file git may write (RLIMIT_FSIZE, set with `ulimit -f` in 512-byte blocks). */
const fileLimitBlocks = (cap: DiskCap): number => Math.ceil((cap.maxBytes + GIT_METADATA_BYTES) / 512);

/** True when the folder holds more than the cap allows, or a file was stopped at the file size limit. */
async function overCap(cap: DiskCap): Promise<boolean> {
  const bytes = await gitFolderBytes(cap.dir);
  const fileLimit = fileLimitBlocks(cap) * 512;
  return bytes.checkout > cap.maxBytes || bytes.git > fileLimit || bytes.largest >= fileLimit;
}

/**
 * The environment of every git run: no user or system config, no prompts, no LFS downloads, and the
 * settings below through GIT_CONFIG_* so that a token never shows in the process list.
 */
function gitEnv(options: RunGitOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    HOME: '/nonexistent',
    LANG: 'C',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: 'true',
    SSH_ASKPASS: 'true',
    GIT_LFS_SKIP_SMUDGE: '1',
    GIT_SSH_COMMAND: 'ssh -o BatchMode=yes -o StrictHostKeyChecking=yes',
  };
  for (const name of [...PASSED, ...PASSED_SSH]) {
    const value = options.env[name];
    if (value !== undefined) env[name] = value;
  }
  const settings: Array<[string, string]> = [
    ['core.hooksPath', '/dev/null'],
    ['core.symlinks', 'false'],
    ['core.fsmonitor', 'false'],
    ['submodule.recurse', 'false'],
    ['fetch.recurseSubmodules', 'false'],
    ['protocol.ext.allow', 'never'],
    ['credential.helper', ''],
    ['advice.detachedHead', 'false'],
  ];
  // File URLs only for a source that names one (git refuses them by default in some places).
  if (options.url.startsWith('file:')) settings.push(['protocol.file.allow', 'always']);
  if (options.token !== undefined) {
    const basic = Buffer.from(`x-access-token:${options.token}`).toString('base64');
    settings.push([`http.${options.url}.extraHeader`, `Authorization: Basic ${basic}`]);
    // A redirect could carry the header to another host: a source with a token is fetched where it says.
    settings.push(['http.followRedirects', 'false']);
  }
  env.GIT_CONFIG_COUNT = String(settings.length);
  for (const [index, [key, value]] of settings.entries()) {
    env[`GIT_CONFIG_KEY_${index}`] = key;
    env[`GIT_CONFIG_VALUE_${index}`] = value;
  }
  return env;
}

/** The last lines git wrote to stderr, with anything shaped like a credential removed. */
function gitReason(stderr: string, token: string | undefined): string {
  let text = stderr;
  if (token !== undefined && token !== '') text = text.split(token).join('***');
  text = text.replace(/(\/\/)[^/@\s]+@/g, '$1***@');
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('hint:'));
  return lines.slice(-2).join(' ') || 'git failed';
}

/**
 * Runs one git command with the safe environment; resolves with its stdout, rejects with a SourcesError.
 * With a `diskCap`, git cannot write one file past the cap (the kernel's file size limit stops the pack being
 * received or the file being checked out), and the folder is measured every 100 ms: past the cap the whole
 * process group is killed (TOO_LARGE). git has no client-side limit of its own on what a server sends.
 */
export function runGit(args: readonly string[], options: RunGitOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const cap = options.diskCap;
    // `sh` sets the limit and becomes git: the limit holds for every helper git starts (index-pack, remote-http).
    const [command, argv] =
      cap === undefined
        ? ['git', args]
        : [
            'sh',
            [
              '-c',
              'ulimit -f "$1" 2>/dev/null; shift; exec git "$@"',
              'sh',
              String(fileLimitBlocks(cap)),
              ...args,
            ],
          ];
    const child = spawn(command, argv, {
      cwd: options.cwd,
      env: gitEnv(options),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let timedOut = false;
    let tooLarge = false;
    let exited = false;
    const kill = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(
      () => {
        timedOut = true;
        kill();
      },
      Math.max(0, options.deadline - Date.now()),
    );
    let poller: NodeJS.Timeout | undefined;
    const poll = (dir: DiskCap) => {
      poller = setTimeout(() => {
        void overCap(dir).then((over) => {
          if (exited) return;
          if (over) {
            tooLarge = true;
            kill();
          } else poll(dir);
        });
      }, POLL_MS);
    };
    if (cap !== undefined) poll(cap);
    child.stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > MAX_OUTPUT_BYTES) kill();
      else out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err = (err + chunk.toString('utf8')).slice(-8192);
    });
    child.on('error', (error) => {
      exited = true;
      clearTimeout(timer);
      clearTimeout(poller);
      reject(
        new SourcesError('FETCH_FAILED', `cannot run git (${error.message})`, { source: options.source }),
      );
    });
    const settle = (code: number | null) => {
      if (timedOut) {
        reject(
          new SourcesError('TIMEOUT', 'git ran past sources.fetch_timeout_seconds', {
            source: options.source,
          }),
        );
      } else if (tooLarge && cap !== undefined) {
        reject(
          new SourcesError(
            'TOO_LARGE',
            `git ${args[0]} went over the ${cap.maxBytes}-byte cap (sources.max_bytes): stopped`,
            { source: options.source },
          ),
        );
      } else if (code !== 0) {
        reject(
          new SourcesError('FETCH_FAILED', `git ${args[0]} failed: ${gitReason(err, options.token)}`, {
            source: options.source,
          }),
        );
      } else resolve(Buffer.concat(out).toString('utf8'));
    };
    child.on('close', (code, signal) => {
      exited = true;
      clearTimeout(timer);
      clearTimeout(poller);
      // SIGXFSZ: git itself wrote a file to the size limit. Else one last measure: a helper of git's was stopped
      // by the limit (its partial pack stays at the limit), or git finished between two polls.
      if (cap !== undefined && signal === 'SIGXFSZ') tooLarge = true;
      if (cap === undefined || timedOut || tooLarge) settle(code);
      else
        void overCap(cap).then((over) => {
          tooLarge = over;
          settle(code);
        });
    });
  });
}
