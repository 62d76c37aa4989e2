import { describe, expect, it } from 'vitest';
import { boundedFileOp } from '../src/files/boundedFileOp.js';
import { SkillsError } from '../src/skillsError.js';

/** A promise settled from outside: a file operation stuck in the kernel until the test lets it go. */
function stuckOperation<T>() {
  let settle: (value: T) => void = () => {};
  const promise = new Promise<T>((resolve) => {
    settle = resolve;
  });
  return { promise, settle };
}

const codeOf = async (promise: Promise<unknown>): Promise<string | undefined> =>
  promise.then(
    () => undefined,
    (error: unknown) => (error instanceof SkillsError ? error.code : String(error)),
  );

describe('boundedFileOp', () => {
  it('passes a prompt result and a prompt error through', async () => {
    expect(await boundedFileOp('/x/a', async () => 42)).toBe(42);
    await expect(boundedFileOp('/x/a', async () => Promise.reject(new Error('EIO')))).rejects.toThrow('EIO');
  });

  it('a stuck operation costs its caller one FILE_TIMEOUT, and later callers on that path fail at once', async () => {
    const stuck = stuckOperation<string>();
    const released: string[] = [];
    const started = Date.now();
    expect(
      await codeOf(
        boundedFileOp('/x/stuck', () => stuck.promise, {
          timeoutMs: 50,
          release: (value) => released.push(value),
        }),
      ),
    ).toBe('FILE_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(5_000);
    // Further operations on the stuck path do not queue behind it (no second thread is taken)...
    let called = false;
    expect(
      await codeOf(
        boundedFileOp('/x/stuck', async () => {
          called = true;
          return 'second';
        }),
      ),
    ).toBe('FILE_BUSY');
    expect(called).toBe(false);
    // ...while other paths are served.
    expect(await boundedFileOp('/x/other', async () => 'fine')).toBe('fine');
    // When the stuck operation ends, its late value is released and the path works again.
    stuck.settle('late handle');
    await stuck.promise;
    await Promise.resolve();
    expect(released).toEqual(['late handle']);
    expect(await boundedFileOp('/x/stuck', async () => 'again')).toBe('again');
  });
});
