import { describe, expect, it } from 'vitest';
import { gatewaySourceLines } from './helpers/sourceLines.js';

// What deciding visibility looks like in code: reading a principal's allow-list, building a tool view
// (listTools / access with a disclosure mode, unlocks and an allow-list) or reading a session's unlocks.
// Asking the policy (`disclosure.listTools(...)`) is what every other module does instead.
const DECISIONS: readonly RegExp[] = [
  /\.allowedSkills\(/,
  /(?<!disclosure)\.listTools\(/,
  /\bcatalog\.access\(/,
  /\.unlocked\(/,
];

// Where the rule lives (disclosure/), where the allow-list it asks is defined (auth/), and the session store
// decorator that keeps a request's unlocks (it stores them; it decides nothing).
const ALLOWED = ['disclosure/', 'auth/accessPolicy.ts', 'legacy/withUnlockSnapshots.ts'];

describe('the disclosure rule', () => {
  it('is decided only in disclosure/: no other gateway module reads allow-lists, unlocks or builds tool views', async () => {
    const leaks = (await gatewaySourceLines())
      .filter((line) => !ALLOWED.some((allowed) => line.path.startsWith(allowed)))
      .filter((line) => DECISIONS.some((pattern) => pattern.test(line.text)))
      .map((line) => `${line.path}:${line.number}: ${line.text.trim()}`);
    expect(leaks).toEqual([]);
  });
});
