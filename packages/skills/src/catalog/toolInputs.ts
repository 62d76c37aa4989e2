import { z } from 'zod';

/** JSON Schema of a tool's input, as sent in tools/list. */
export interface ToolInputSchema {
  readonly type: 'object';
  readonly properties?: Readonly<Record<string, object>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean;
  readonly [key: string]: unknown;
}

/** Limits every tool argument is checked against (from the `scripts` config section). */
export interface ArgumentLimits {
  /** Upper bound of `timeout`, in seconds. */
  readonly maxTimeoutSeconds: number;
  /** Most entries in `args`. */
  readonly maxArgs: number;
  /** Most UTF-8 bytes of all `args` together. */
  readonly maxArgBytes: number;
  /** Most UTF-8 bytes of `stdin`. */
  readonly maxStdinBytes: number;
}

/** Default limits, equal to the config defaults (used by callers that build a catalog without a config). */
export const DEFAULT_ARGUMENT_LIMITS: ArgumentLimits = {
  maxTimeoutSeconds: 300,
  maxArgs: 256,
  maxArgBytes: 65_536,
  maxStdinBytes: 1_048_576,
};

const MAX_TAIL_LINES = 100_000;
const MAX_NAME_CHARS = 256;
const MAX_PATH_CHARS = 4096;
/** Longest search query and cursor (docs/disclosure.md). */
const MAX_QUERY_CHARS = 1000;
const MAX_CURSOR_CHARS = 200;
/** Most results one search_skills call returns. */
export const MAX_SEARCH_LIMIT = 20;

const noNul = (s: string) => !s.includes('\0');
const utf8Bytes = (s: string) => Buffer.byteLength(s);

/** Builds the enforced (zod) schema of every tool kind; the advertised JSON Schemas derive from these. */
function buildZodInputs(limits: ArgumentLimits, asyncEnabled: boolean) {
  // A NUL cannot be passed in argv: refuse it here, as an argument error naming the field.
  const argv = z
    .array(z.string().refine(noNul, { message: 'must not contain a NUL character' }))
    .max(limits.maxArgs)
    .refine((list) => list.reduce((n, a) => n + utf8Bytes(a), 0) <= limits.maxArgBytes, {
      message: `may hold at most ${limits.maxArgBytes} bytes in total`,
    })
    .describe(`argv for the script (at most ${limits.maxArgs} entries, ${limits.maxArgBytes} bytes)`);
  const stdin = z
    .string()
    .refine((s) => utf8Bytes(s) <= limits.maxStdinBytes, { message: `is over ${limits.maxStdinBytes} bytes` })
    .describe(`standard input (at most ${limits.maxStdinBytes} bytes)`);
  const timeout = z.number().positive().max(limits.maxTimeoutSeconds).describe('seconds');
  const tail = z.number().int().min(0).max(MAX_TAIL_LINES).describe('lines of output to return');
  const name = z.string().min(1).max(MAX_NAME_CHARS);
  const skill = name.describe('skill name');
  const path = z.string().min(1).max(MAX_PATH_CHARS).describe('file path inside the skill');
  const jobId = name;
  const runFields = { args: argv.optional(), stdin: stdin.optional(), timeout: timeout.optional() };
  const background = z.boolean().describe('start in the background and return a job_id');
  // Unknown keys are accepted and dropped, never refused: hosts add their own (Gemini CLI forwards a
  // `wait_for_previous` flag to every tool). The known keys keep every cap (docs/decisions.md).
  return {
    none: z.object({}),
    run: z.object({ ...runFields, tail: tail.optional() }),
    runAsync: z.object(runFields),
    jobStatus: z.object({ job_id: jobId, tail: tail.optional() }),
    jobCancel: z.object({ job_id: jobId }),
    loadSkill: z.object({ name: skill }),
    searchSkills: z.object({
      query: z
        .string()
        .min(1)
        .max(MAX_QUERY_CHARS)
        .describe('what the task needs, in words; "*" lists every skill in name order'),
      limit: z
        .number()
        .int()
        .min(1)
        .max(MAX_SEARCH_LIMIT)
        .optional()
        .describe(`results per page (default 5, at most ${MAX_SEARCH_LIMIT})`),
      cursor: z.string().min(1).max(MAX_CURSOR_CHARS).optional().describe('nextCursor of the previous page'),
    }),
    listSkillFiles: z.object({ skill }),
    readSkillFile: z.object({ skill, path }),
    // Upstream tools validate their own arguments: the gateway only checks that they are an object.
    callArguments: z.record(z.string(), z.unknown()),
    callSkillTool: z.object({
      skill,
      tool: name.describe("the upstream tool's name exactly as the skill's instructions print it"),
      upstream: name
        .optional()
        .describe(
          'the MCP server of the tool, when the instructions print one (two servers have a tool of that name)',
        ),
      arguments: z
        .record(z.string(), z.unknown())
        .optional()
        .describe("the tool's arguments, as its input schema in the skill's instructions says"),
    }),
    runSkillScript: z.object({
      skill,
      path,
      ...runFields,
      tail: tail.optional(),
      ...(asyncEnabled ? { async: background.optional() } : {}),
    }),
  };
}

/** The enforced schemas of every tool kind. */
export type ToolInputValidators = ReturnType<typeof buildZodInputs>;

/** The name of one input contract (several tool kinds share one: get_info and read take none). */
export type InputName = keyof ToolInputValidators;

/** Validated input of a run tool. */
export type RunInput = z.output<ToolInputValidators['run']>;

/** The advertised JSON Schema of every tool kind, derived from the validators. */
export type ToolSchemas = { readonly [K in keyof ToolInputValidators]: ToolInputSchema };

/** One input contract per tool kind: what is enforced, and the JSON Schema clients see, derived from it. */
export interface ToolInputs {
  readonly validators: ToolInputValidators;
  readonly schemas: ToolSchemas;
}

/**
 * The JSON Schema a client sees for a validator. An argument-less object is advertised as the shortest
 * valid schema, `{"type":"object"}`: one get_info tool per skill is in every first tools/list.
 */
function advertised(validator: z.ZodType): ToolInputSchema {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(validator, { io: 'input' }) as Record<
    string,
    unknown
  >;
  const properties = schema.properties as Record<string, unknown> | undefined;
  if (properties !== undefined && Object.keys(properties).length === 0) return { type: 'object' };
  return schema as ToolInputSchema;
}

/** Builds the input contract of a catalog once (schema conversion never happens per request). */
export function buildToolInputs(limits: ArgumentLimits, asyncEnabled: boolean): ToolInputs {
  const validators = buildZodInputs(limits, asyncEnabled);
  const schemas = Object.fromEntries(
    Object.entries(validators).map(([kind, validator]) => [kind, advertised(validator)]),
  ) as unknown as ToolSchemas;
  return { validators, schemas };
}
