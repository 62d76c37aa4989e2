import { z } from 'zod';
import { NO_OUTPUT } from './noOutput.js';
import type { JobRecord } from './types.js';

const int = z.coerce.number().int();
const nullableInt = z.string().transform((v, ctx) => {
  if (v === '') return null;
  const n = Number(v);
  if (!Number.isInteger(n)) ctx.addIssue({ code: 'custom', message: 'not an integer' });
  return n;
});
const output = z.object({
  stdout: z.string(),
  stderr: z.string(),
  stdout_truncated: z.boolean(),
  stderr_truncated: z.boolean(),
  stdout_bytes: z.number(),
  stderr_bytes: z.number(),
});

// The job hash as Redis returns it: every field a string.
const schema = z.object({
  owner: z.string().min(1),
  skill: z.string(),
  script: z.string(),
  startedAt: int,
  state: z.enum(['running', 'exited', 'timed_out', 'cancelled', 'failed', 'lost']),
  replica: z.string(),
  exitCode: nullableInt,
  signal: z.string().transform((v) => (v === '' ? null : v)),
  durationMs: int,
  output: z.string().transform((v, ctx) => {
    if (v === '') return NO_OUTPUT;
    try {
      return output.parse(JSON.parse(v));
    } catch {
      ctx.addIssue({ code: 'custom', message: 'not job output' });
      return NO_OUTPUT;
    }
  }),
  updatedAt: int,
  endedAt: z.string().optional(),
  error: z.string().optional(),
  limit: z.enum(['', 'memory', 'processes', 'file_bytes', 'cpu_seconds']).optional(),
  cancel: z.string().optional(),
});

/** Parses a job hash (HGETALL as a flat [field, value, ...] list); undefined when it is not a job. */
export function parseJobRecord(id: string, flat: unknown): JobRecord | undefined {
  if (!Array.isArray(flat)) return undefined;
  const fields: Record<string, unknown> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[String(flat[i])] = flat[i + 1];
  const parsed = schema.safeParse(fields);
  if (!parsed.success) return undefined;
  const { endedAt, error, limit, cancel, ...rest } = parsed.data;
  return {
    id,
    ...rest,
    ...(endedAt === undefined || endedAt === '' ? {} : { endedAt: Number(endedAt) }),
    ...(error === undefined || error === '' ? {} : { error }),
    ...(limit === undefined || limit === '' ? {} : { limitExceeded: limit }),
    cancelRequested: cancel === '1',
  };
}
