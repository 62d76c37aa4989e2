import { z } from 'zod';
import { GatewayError } from './gatewayError.js';

/** Limits the argument schemas enforce, from the `scripts` config section. */
export interface ArgumentLimits {
  readonly maxTimeoutSeconds: number;
  readonly maxArgs: number;
  readonly maxArgBytes: number;
  readonly maxStdinBytes: number;
}

/** Validated input of a run tool. */
export interface RunInput {
  readonly args?: readonly string[];
  readonly stdin?: string;
  readonly timeout?: number;
  readonly tail?: number;
}

/** The zod schemas of every tool's arguments, built once per gateway (validation at the edge). */
export function createArgumentSchemas(limits: ArgumentLimits) {
  const args = z
    .array(z.string())
    .max(limits.maxArgs)
    .refine((list) => list.reduce((n, a) => n + Buffer.byteLength(a), 0) <= limits.maxArgBytes, {
      message: `args may hold at most ${limits.maxArgBytes} bytes in total`,
    });
  const stdin = z.string().refine((s) => Buffer.byteLength(s) <= limits.maxStdinBytes, {
    message: `stdin is over ${limits.maxStdinBytes} bytes`,
  });
  const runFields = {
    args: args.optional(),
    stdin: stdin.optional(),
    timeout: z.number().positive().max(limits.maxTimeoutSeconds).optional(),
  };
  const tail = z.number().int().min(0).max(100_000).optional();
  const name = z.string().min(1).max(256);
  return {
    none: z.strictObject({}),
    run: z.strictObject({ ...runFields, tail }),
    runAsync: z.strictObject(runFields),
    jobStatus: z.strictObject({ job_id: name, tail }),
    jobCancel: z.strictObject({ job_id: name }),
    loadSkill: z.strictObject({ name }),
    listSkillFiles: z.strictObject({ skill: name }),
    readSkillFile: z.strictObject({ skill: name, path: z.string().min(1).max(4096) }),
    runSkillScript: z.strictObject({
      skill: name,
      path: z.string().min(1).max(4096),
      ...runFields,
      tail,
      async: z.boolean().optional(),
    }),
  };
}

/** The schemas createArgumentSchemas builds. */
export type ArgumentSchemas = ReturnType<typeof createArgumentSchemas>;

/** Parses tool arguments or throws INVALID_ARGUMENTS naming each bad field. */
export function parseArguments<T>(schema: z.ZodType<T>, toolName: string, input: unknown): T {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const details = result.error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(arguments)'}: ${issue.message}`)
    .join('; ');
  throw new GatewayError('INVALID_ARGUMENTS', `Invalid arguments for tool ${toolName}: ${details}`);
}
