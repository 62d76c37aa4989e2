import { describe, expect, it } from 'vitest';
import { scanJsonShape } from '../src/http/scanJsonShape.js';

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
