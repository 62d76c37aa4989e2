import { describe, expect, it } from 'vitest';
import { mayExceedJsonBounds, scanJsonShape } from '../../../src/http/scanJsonShape.js';

const BOUNDS = { maxDepth: 4, maxKeys: 10 };

describe('scanJsonShape', () => {
  it('passes a body within both bounds and reads its top-level id and method', () => {
    const text = JSON.stringify({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'a,b{[' }, id: 7 });
    expect(scanJsonShape(text, BOUNDS)).toEqual({ id: 7, method: 'tools/call' });
    expect(scanJsonShape('{ "id" : "x\\"y", "method":"m" }', BOUNDS)).toEqual({ id: 'x"y', method: 'm' });
  });

  it('ignores an id or method nested below the top level', () => {
    const text = JSON.stringify({ params: { id: 3, method: 'no' }, method: 'yes' });
    expect(scanJsonShape(text, BOUNDS)).toEqual({ method: 'yes' });
  });

  it('names the depth bound past it, and still finds an id written after the deep part', () => {
    const text = `{"method":"m","params":{"x":${'['.repeat(10)}${']'.repeat(10)}},"id":"late"}`;
    const shape = scanJsonShape(text, BOUNDS);
    expect(shape.exceeded).toContain('server.max_json_depth');
    expect(shape).toMatchObject({ id: 'late', method: 'm' });
  });

  it('names the width bound past it, counting keys and array elements', () => {
    const wide = JSON.stringify({
      id: 1,
      method: 'm',
      params: { a: Array.from({ length: 20 }, (_, i) => i) },
    });
    expect(scanJsonShape(wide, BOUNDS).exceeded).toContain('server.max_json_keys');
    const keys = JSON.stringify({
      id: 1,
      params: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i])),
    });
    expect(scanJsonShape(keys, BOUNDS).exceeded).toContain('server.max_json_keys');
  });

  it('does not count separators inside strings', () => {
    const text = JSON.stringify({
      id: 1,
      method: 'm',
      params: { s: ',,,,,,,,,,,,,,,,,,,,[[[[[[[[[[{{{{{{' },
    });
    expect(scanJsonShape(text, BOUNDS).exceeded).toBeUndefined();
  });
});

describe('mayExceedJsonBounds (the walk skipped for small bodies)', () => {
  const bodies = [
    JSON.stringify({ method: 'tools/list', params: {}, id: 7 }),
    `{"method":"m","params":{"x":${'['.repeat(10)}${']'.repeat(10)}},"id":"late"}`,
    JSON.stringify({
      method: 'm',
      params: Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`k${i}`, i])),
    }),
    JSON.stringify({ method: 'm', params: { text: ',,,,,,,,,,,,,,,,{{{{[[[[' } }),
    '[[[[[]]]]]',
  ];

  it('says "may exceed" for every body scanJsonShape refuses, and "passes" only for bodies it passes', () => {
    for (const text of bodies) {
      const refused = scanJsonShape(text, BOUNDS).exceeded !== undefined;
      if (refused) expect(mayExceedJsonBounds(text, BOUNDS)).toBe(true);
      if (!mayExceedJsonBounds(text, BOUNDS)) expect(refused).toBe(false);
    }
  });

  it('lets a plain small request skip the walk, and not one with more separators than a bound', () => {
    expect(mayExceedJsonBounds(bodies[0] ?? '', BOUNDS)).toBe(false);
    // Separators inside strings count too: the check is cheap because it never reads the JSON.
    expect(mayExceedJsonBounds(bodies[3] ?? '', BOUNDS)).toBe(true);
    expect(mayExceedJsonBounds(bodies[1] ?? '', BOUNDS)).toBe(true);
  });
});
