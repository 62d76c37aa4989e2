import { describe, expect, it } from 'vitest';
import { gatewayCalls } from './sourceCalls.js';

// A catalog lookup by tool name: `<…catalog>.resolve(…)` or `<…catalog>.access(…)`.
const isCatalogLookup = (call: { method: string; receiver: string }) =>
  (call.method === 'resolve' || call.method === 'access') && /(^|\.)catalog$/.test(call.receiver);

// The one place a tools/call name is resolved (into a ToolCall every later step reads); a file found by its
// exact catalog path (findFile, through the path's read-tool name); and the disclosure rule, which previews
// lists by resolving the names it lists.
const ALLOWED: readonly { readonly path: string; readonly within?: string }[] = [
  { path: 'tools/toolCallHandler.ts' },
  { path: 'tools/skillLookup.ts', within: 'findFile' },
  { path: 'disclosure/' },
];

describe('a called tool name', () => {
  it('is resolved once, in the tools/call handler: policy, dispatch and labels read the resolved target', async () => {
    const lookups = (await gatewayCalls()).filter(isCatalogLookup);
    const stray = lookups
      .filter(
        (call) =>
          !ALLOWED.some(
            (allowed) =>
              call.path.startsWith(allowed.path) &&
              (allowed.within === undefined || call.within === allowed.within),
          ),
      )
      .map(
        (call) => `${call.path}:${call.line} (${call.receiver}.${call.method} in ${call.within ?? 'module'})`,
      );
    expect(stray).toEqual([]);
    expect(lookups.filter((call) => call.path === 'tools/toolCallHandler.ts')).toHaveLength(1);
  });
});
