import { describe, expect, it } from 'vitest';
import { isRenderedOnce, jsonOf, objectJsonOf, renderOnce } from '../../../src/core/renderedJson.js';

// src/mcp/renderedJson.ts writes registered values as JSON once; every answer must stay exactly
// JSON.stringify's, whatever the value holds.

describe('rendered JSON (mcp/renderedJson.ts)', () => {
  const text = 'line one\n"quoted" — and \u2028 a separator, \\ a backslash';

  it('a registered value is deep-frozen and written exactly as JSON.stringify writes it, the same string each time', () => {
    const value = renderOnce({ content: [{ type: 'text', text }], meta: { n: 1, list: [1, 'two', null] } });
    expect(isRenderedOnce(value)).toBe(true);
    expect(isRenderedOnce(value.content[0])).toBe(true);
    expect(Object.isFrozen(value.content[0])).toBe(true);
    expect(Object.isFrozen(value.meta.list)).toBe(true);
    expect(() => {
      (value.meta as { n: number }).n = 2;
    }).toThrow(TypeError);
    expect(jsonOf(value)).toBe(JSON.stringify(value));
    expect(jsonOf(value)).toBe(jsonOf(value));
  });

  it('objectJsonOf equals JSON.stringify: key order (integer keys first), skipped undefined and function values, nested registered values', () => {
    const skill = renderOnce({ name: 'x', instructions: text });
    const object: Record<string, unknown> = {
      b: 1,
      '2': 'two',
      a: undefined,
      skill,
      f: () => 1,
      nested: { deeper: [undefined, skill, { z: undefined }] },
      '1': null,
      empty: {},
    };
    expect(objectJsonOf(object)).toBe(JSON.stringify(object));
    expect(objectJsonOf({})).toBe('{}');
    expect(objectJsonOf(skill)).toBe(JSON.stringify(skill));
  });

  it('an unregistered value is written afresh each time (a change shows)', () => {
    const value = { count: 1 };
    expect(jsonOf(value)).toBe('{"count":1}');
    value.count = 2;
    expect(jsonOf(value)).toBe('{"count":2}');
    expect(isRenderedOnce(value)).toBe(false);
  });
});
