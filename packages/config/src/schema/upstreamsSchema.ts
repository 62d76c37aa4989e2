import { MAX_DESCRIPTION_CHARS } from '@skillgate/skills';
import { z } from 'zod';
import { upstreamAuthSchema } from './credentialsSchema.js';
import { count, envName, glob, headerName, isHttpUrl, seconds } from './fieldTypes.js';

const upstreamSchema = z
  .strictObject({
    id: z
      .string()
      .regex(
        /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/,
        'must be 1-32 of a-z 0-9 -, not starting or ending with -',
      )
      .describe('Names the upstream (and its auto skill); a-z 0-9 -, unique.'),
    url: z
      .string()
      .refine(isHttpUrl, 'must be an http:// or https:// URL without credentials (use headers_from_env)')
      .optional()
      .describe('Streamable HTTP endpoint of the upstream (either protocol era).'),
    command: z
      .array(z.string().min(1))
      .min(1)
      .max(256)
      .optional()
      .describe("argv of a stdio upstream, started in the gateway's working directory."),
    headers_from_env: z
      .record(headerName, envName)
      .optional()
      .describe(
        'HTTP headers sent to the upstream: header name -> environment variable holding its whole value.',
      ),
    auth: upstreamAuthSchema
      .optional()
      .describe(
        'Credentials for an HTTP upstream (docs/credentials.md): { provider, header? } | { token_exchange } | { client_credentials }, with discovery? for listing.',
      ),
    env_from: z
      .record(envName, envName)
      .optional()
      .describe(
        'Environment of a stdio upstream beyond PATH, HOME, LANG: child variable -> gateway variable.',
      ),
    sandbox: z
      .strictObject({
        network: z
          .boolean()
          .default(false)
          .describe(
            'Whether the sandboxed stdio upstream may use the network (an API-backed server needs it).',
          ),
        read: z
          .array(z.string().min(1))
          .max(64)
          .default([])
          .describe(
            'More host paths the sandboxed stdio upstream may read (beyond its program and argv paths).',
          ),
        write: z
          .array(z.string().min(1))
          .max(64)
          .default([])
          .describe('Host paths the sandboxed stdio upstream may write (its data folders).'),
      })
      .optional()
      .describe('What a stdio upstream gets in the script sandbox (docs/sandbox.md, "Stdio upstreams").'),
    description: z
      .string()
      .min(1)
      .max(MAX_DESCRIPTION_CHARS)
      .optional()
      .describe("Description of the auto skill (else from the upstream's instructions or name)."),
    skill: z
      .enum(['auto', 'none'])
      .default('auto')
      .describe('auto: the upstream is a skill named id; none: only folder skills bind its tools.'),
    tools: z.array(glob).min(1).default(['*']).describe('Globs of the upstream tools exposed at all.'),
    timeout_seconds: seconds(86_400).default(60).describe('Longest wait for one call, queueing included.'),
    max_concurrent: count().max(1024).default(8).describe('Calls in flight to this upstream; more wait.'),
    max_concurrent_per_principal: count()
      .max(1024)
      .optional()
      .describe(
        'Calls in flight to this upstream for one principal (at most max_concurrent); more wait. Default: half of max_concurrent rounded up, at most 4, so no principal holds every slot.',
      ),
    max_result_bytes: count(1024)
      .max(268_435_456)
      .default(1_048_576)
      .describe('Largest call result (JSON bytes); a larger one is RESULT_TOO_LARGE.'),
    max_tools: count()
      .max(100_000)
      .default(256)
      .describe('Most tools of the upstream kept, in listing order; the rest are dropped and reported.'),
    max_tool_schema_bytes: count(256)
      .max(16_777_216)
      .default(16_384)
      .describe(
        'Largest input plus output schema of one tool (JSON bytes); a larger tool is dropped and reported.',
      ),
    max_tool_description_bytes: count(64)
      .max(1_048_576)
      .default(4096)
      .describe('Longest tool description kept (UTF-8 bytes); a longer one is cut.'),
  })
  .superRefine((upstream, ctx) => {
    if ((upstream.url === undefined) === (upstream.command === undefined)) {
      ctx.addIssue({ code: 'custom', path: [], message: 'give exactly one of url and command' });
    }
    if (upstream.url === undefined && upstream.headers_from_env !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['headers_from_env'], message: 'only applies to url upstreams' });
    }
    if (upstream.url === undefined && upstream.auth !== undefined) {
      // A stdio upstream is one process for every caller: it keeps its configured environment.
      ctx.addIssue({ code: 'custom', path: ['auth'], message: 'only applies to url upstreams' });
    }
    const authHeader = upstream.auth === undefined ? undefined : (upstream.auth.header ?? 'Authorization');
    const clash = Object.keys(upstream.headers_from_env ?? {}).find(
      (name) => name.toLowerCase() === authHeader?.toLowerCase(),
    );
    if (clash !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['headers_from_env', clash],
        message: 'is the header auth sets; remove one of them',
      });
    }
    if (upstream.command === undefined && upstream.sandbox !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['sandbox'], message: 'only applies to command upstreams' });
    }
    if (upstream.command === undefined && upstream.env_from !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['env_from'], message: 'only applies to command upstreams' });
    }
  });

/** The `upstreams` config section. */
export const upstreamsSchema = z
  .array(upstreamSchema)
  .max(256)
  .default([])
  .describe(
    'Upstream MCP servers (docs/upstreams.md): { id, url | command, headers_from_env?, auth?, env_from?, sandbox?: { network: false, read: [], write: [] }, description?, skill: auto, tools: ["*"], timeout_seconds: 60, max_concurrent: 8, max_concurrent_per_principal: half of max_concurrent (at most 4), max_result_bytes: 1048576, max_tools: 256, max_tool_schema_bytes: 16384, max_tool_description_bytes: 4096 }.',
  )
  .superRefine((upstreams, ctx) => {
    const seen = new Set<string>();
    upstreams.forEach((upstream, i) => {
      if (seen.has(upstream.id)) {
        ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `duplicate upstream id "${upstream.id}"` });
      }
      seen.add(upstream.id);
    });
  });
