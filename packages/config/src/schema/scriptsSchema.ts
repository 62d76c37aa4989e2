import { z } from 'zod';
import { providerId } from './credentialsSchema.js';
import { count, envName, glob, seconds } from './fieldTypes.js';

/** Highest `max_args`: 4,096 pointers and NULs stay far below ARG_MAX beside the longest args. */
const MAX_ARGS = 4096;
/** Highest `max_arg_bytes`: the longest single argument Linux execs (MAX_ARG_STRLEN less its NUL). */
const MAX_ARG_BYTES = 131_071;

const limitsSchema = z.strictObject({
  memory_mb: count(0)
    .max(1_048_576)
    .default(1024)
    .describe('Heap (data segment) of each script process in MiB (RLIMIT_DATA); 0 = no limit.'),
  processes: count(0)
    .max(1_000_000)
    .default(128)
    .describe('Processes and threads of one run (a cgroup pids limit where available); 0 = no limit.'),
  file_bytes: count(0)
    .default(67_108_864)
    .describe(
      'Largest file a script may write (RLIMIT_FSIZE), and the size of its private /tmp; 0 = no limit.',
    ),
  cpu_seconds: count(0)
    .max(7 * 86_400)
    .default(300)
    .describe('CPU time of each script process in seconds (RLIMIT_CPU); 0 = no limit.'),
});

/** The `scripts` config section. */
export const scriptsSchema = z
  .strictObject({
    default_timeout_seconds: seconds()
      .default(30)
      .describe('Script timeout in seconds when the caller gives none.'),
    max_timeout_seconds: seconds().default(300).describe('Largest timeout a caller may ask for, in seconds.'),
    max_output_bytes: count(1024)
      .default(1_048_576)
      .describe('Bytes kept of each of stdout and stderr (the tail).'),
    default_tail: count(0).default(200).describe('Lines of output returned when the caller gives no tail.'),
    max_concurrent: count().default(4).describe('Scripts running at once across the gateway.'),
    max_concurrent_per_principal: count()
      .optional()
      .describe(
        'Scripts running at once for one principal. Default: half of max_concurrent rounded up, at most 2, so no principal holds every slot.',
      ),
    max_queue: count(0).default(32).describe('Runs that may wait for a slot; 0 = fail fast when busy.'),
    queue_timeout_seconds: seconds(3600)
      .default(30)
      .describe('Longest wait for a slot before the run is refused.'),
    max_stdin_bytes: count(0).default(1_048_576).describe('Largest stdin a caller may send.'),
    // Linux refuses to exec an argument longer than MAX_ARG_STRLEN (131,072 bytes with its NUL) and an argv and
    // environment past ARG_MAX (2 MiB with the usual 8 MiB stack): a bound above either let a caller's args
    // fail at exec (docs/limits.md, "Scripts").
    max_args: count(0).max(MAX_ARGS).default(256).describe(`Most entries in args (at most ${MAX_ARGS}).`),
    max_arg_bytes: count(0)
      .max(MAX_ARG_BYTES)
      .default(65_536)
      .describe(
        `Most bytes in all args together (at most ${MAX_ARG_BYTES}: the kernel's limit of one argument).`,
      ),
    kill_grace_ms: count(0)
      .max(60_000)
      .default(2000)
      .describe('Time between SIGTERM and SIGKILL of a script process group.'),
    env_passthrough: z
      .array(envName)
      .default(['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ'])
      .describe('Environment variables a script may see (plus SKILL_NAME and SKILL_DIR).'),
    interpreters: z
      .record(
        z.string().regex(/^\.[A-Za-z0-9]+$/, 'must be a file extension such as .py'),
        z.array(z.string().min(1)).min(1),
      )
      // A factory, so no two parses share (and freeze) the same nested arrays.
      .default(() => ({
        '.py': ['python3'],
        '.sh': ['bash'],
        '.bash': ['bash'],
        '.js': ['node'],
        '.mjs': ['node'],
        '.cjs': ['node'],
      }))
      .describe(
        'Interpreter argv by file extension; replaces the default map. Executable files with a shebang run directly.',
      ),
    sandbox: z
      .enum(['auto', 'bwrap', 'off'])
      .default('auto')
      .describe(
        'Run scripts in bubblewrap: auto (when it works here, else off with a warning; refused on a bind beyond loopback), bwrap (refuse to start without it) or off.',
      ),
    network: z
      .boolean()
      .default(false)
      .describe(
        "Let sandboxed scripts use the network (the host's, loopback and the gateway's port included).",
      ),
    limits: limitsSchema.prefault({}),
    credentials: z
      .array(
        z.strictObject({
          skills: z.array(glob).min(1).describe('Globs of the skills whose scripts get the credential.'),
          env: envName.describe('The environment variable the script finds it in.'),
          provider: providerId.describe('The credentials.providers id whose connection or secret it is.'),
        }),
      )
      .max(256)
      .default([])
      .describe(
        "The caller's own credential as a script's environment variable: { skills: [globs], env, provider } (docs/credentials.md); a caller without it is asked to connect and the script does not start.",
      ),
  })
  // Checked on the section, not the root, so it is reported together with problems in other sections.
  .superRefine((scripts, ctx) => {
    scripts.credentials.forEach((credential, i) => {
      // A passed-through variable of the same name would be the gateway's own value for whoever lacks one.
      if (
        scripts.env_passthrough.includes(credential.env) ||
        ['SKILL_NAME', 'SKILL_DIR'].includes(credential.env)
      ) {
        ctx.addIssue({
          code: 'custom',
          path: ['credentials', i, 'env'],
          message: `"${credential.env}" is already set for scripts (env_passthrough, SKILL_NAME, SKILL_DIR)`,
        });
      }
    });
    if (scripts.default_timeout_seconds > scripts.max_timeout_seconds) {
      ctx.addIssue({
        code: 'custom',
        path: ['default_timeout_seconds'],
        message: `must not exceed scripts.max_timeout_seconds (${scripts.max_timeout_seconds})`,
      });
    }
  });
