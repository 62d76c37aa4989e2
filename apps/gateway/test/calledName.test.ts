import { describe, expect, it } from 'vitest';
import { gatewaySourceLines } from './helpers/sourceLines.js';

// Looking a called tool name up in a catalog, or asking the catalog about a name instead of a resolved target.
const LOOKUPS: readonly RegExp[] = [
  /\.resolve\((name|toolName|request\.params\.name)\)/,
  /\.access\((name|toolName)\b/,
];

// The one place a tools/call name is resolved (into a CalledTool every later step reads).
const RESOLVER = 'tools/toolHandlers.ts';

describe('a called tool name', () => {
  it('is resolved once, in the tools/call handler: policy, dispatch and labels read the resolved target', async () => {
    const lookups = (await gatewaySourceLines())
      .filter((line) => LOOKUPS.some((pattern) => pattern.test(line.text)))
      .map((line) => `${line.path}:${line.number}`);
    expect(lookups).toHaveLength(1);
    expect(lookups[0]).toMatch(new RegExp(`^${RESOLVER}:`));
  });
});
