import { describe, expect, it } from 'vitest';
import { buildToolInputs } from '../src/catalog/toolInputs.js';

const LIMITS = { maxTimeoutSeconds: 30, maxArgs: 3, maxArgBytes: 10, maxStdinBytes: 5 };

describe('buildToolInputs: one input contract, advertised from what is enforced', () => {
  const { validators, schemas } = buildToolInputs(LIMITS, true);

  it('advertises every cap the validators enforce', () => {
    const run = schemas.run.properties as Record<string, Record<string, unknown>>;
    expect(run.args?.maxItems).toBe(3);
    expect(run.timeout?.maximum).toBe(30);
    expect(run.tail?.maximum).toBe(100_000);
    expect(run.args?.description).toContain('10 bytes');
    expect(run.stdin?.description).toContain('5 bytes');
    const read = schemas.readSkillFile.properties as Record<string, Record<string, unknown>>;
    expect(read.path?.maxLength).toBe(4096);
    expect(read.skill?.maxLength).toBe(256);
    expect(schemas.jobStatus.required).toEqual(['job_id']);
  });

  it('enforces exactly those caps', () => {
    expect(validators.run.safeParse({ args: ['a', 'b', 'c'] }).success).toBe(true);
    expect(validators.run.safeParse({ args: ['a', 'b', 'c', 'd'] }).success).toBe(false);
    expect(validators.run.safeParse({ args: ['12345678901'] }).success).toBe(false);
    expect(validators.run.safeParse({ timeout: 30 }).success).toBe(true);
    expect(validators.run.safeParse({ timeout: 31 }).success).toBe(false);
    expect(validators.run.safeParse({ stdin: '123456' }).success).toBe(false);
  });

  it('accepts and drops keys it does not know (Gemini CLI adds wait_for_previous), keeping the caps', () => {
    const run = validators.run.safeParse({ args: ['a'], wait_for_previous: true });
    expect(run.success).toBe(true);
    expect(run.data).toEqual({ args: ['a'] });
    expect(validators.run.safeParse({ args: ['a', 'b', 'c', 'd'], wait_for_previous: true }).success).toBe(
      false,
    );
    const call = validators.runSkillScript.safeParse({ skill: 's', path: 'p', wait_for_previous: false });
    expect(call.data).toEqual({ skill: 's', path: 'p' });
    expect(validators.jobStatus.safeParse({ job_id: 'j', extra: 1 }).data).toEqual({ job_id: 'j' });
    // The advertised schema still says what is used, and does not forbid what a host adds.
    expect(Object.keys(schemas.run.properties ?? {})).toEqual(['args', 'stdin', 'timeout', 'tail']);
    expect(schemas.run.additionalProperties).toBeUndefined();
  });

  it('refuses a NUL in argv as an argument error naming the entry', () => {
    const result = validators.run.safeParse({ args: ['ok', 'a\0b'] });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['args', 1]);
  });

  it('advertises argument-less tools as the shortest schema and ignores extra keys there', () => {
    expect(schemas.none).toEqual({ type: 'object' });
    expect(validators.none.safeParse({ anything: 1 }).success).toBe(true);
    expect(validators.none.safeParse([]).success).toBe(false);
  });

  it('has the async flag only when async is enabled', () => {
    const off = buildToolInputs(LIMITS, false);
    expect(Object.keys(off.schemas.runSkillScript.properties ?? {})).not.toContain('async');
    // Without async the key is unknown, so it is dropped: the run is an ordinary one.
    expect(off.validators.runSkillScript.safeParse({ skill: 's', path: 'p', async: true }).data).toEqual({
      skill: 's',
      path: 'p',
    });
    expect(Object.keys(schemas.runSkillScript.properties ?? {})).toContain('async');
  });
});
