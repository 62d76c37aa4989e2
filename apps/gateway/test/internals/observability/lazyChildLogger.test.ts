import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { LazyChildLogger } from '../../../src/observability/lazyChildLogger.js';

/** A real pino logger at `level` and the lines it writes, without their time. */
function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) {
        const { time: _time, pid: _pid, hostname: _host, ...rest } = JSON.parse(line);
        lines.push(rest);
      }
      done();
    },
  });
  return { logger: pino({ level }, sink), lines };
}

const BOOM = new Error('boom');

// The same lines through a pino child and through the lazy child: the lazy one must be indistinguishable.
function writeThrough(level: string, lazy: boolean) {
  const { logger, lines } = capture(level);
  const request = lazy
    ? LazyChildLogger.factory(logger, { reqId: 'r-1' }, {})
    : logger.child({ reqId: 'r-1' });
  const guarded = request.child({ principal: 'alice' });
  guarded.debug('debug line');
  guarded.info({ code: 'X' }, 'info line %s', 'arg');
  guarded.warn('warn line');
  guarded.error({ err: BOOM }, 'error line');
  request.info('before the principal was known');
  return { lines, levels: [request.level, guarded.level] };
}

describe('LazyChildLogger (observability/lazyChildLogger.ts)', () => {
  it('writes exactly the lines a pino child writes, at every level', () => {
    for (const level of ['trace', 'debug', 'info', 'warn', 'error', 'silent']) {
      const eager = writeThrough(level, false);
      const lazy = writeThrough(level, true);
      expect(lazy).toEqual(eager);
    }
    // The comparison saw lines: the info logger wrote four, bound to the request and the principal.
    const { lines } = writeThrough('info', true);
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatchObject({ reqId: 'r-1', principal: 'alice', code: 'X', msg: 'info line arg' });
    expect(lines[3]).toEqual({ level: 30, reqId: 'r-1', msg: 'before the principal was known' });
  });

  it('makes no pino child for a request that writes nothing', () => {
    const { logger } = capture('info');
    let children = 0;
    const counting = Object.assign(Object.create(logger), {
      child: (...args: Parameters<typeof logger.child>) => {
        children += 1;
        return logger.child(...args);
      },
    });
    const request = LazyChildLogger.factory(counting, { reqId: 'r-2' }, {});
    request.child({ principal: 'bob' }).debug('not written at info');
    expect(children).toBe(0);
    request.child({ principal: 'bob' }).info('written');
    expect(children).toBe(1);
  });
});
