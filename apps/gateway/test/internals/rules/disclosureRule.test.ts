import { describe, expect, it } from 'vitest';
import { gatewayCalls } from './sourceCalls.js';

// What deciding visibility looks like in code: reading a principal's allow-list, reading a session's
// unlocks, or building a tool view from the catalog (listTools / access). Asking the policy
// (`disclosure.listTools(...)`) is what every other module does instead.
const isDecision = (call: { method: string; receiver: string }) =>
  call.method === 'allowedSkills' ||
  call.method === 'unlocked' ||
  ((call.method === 'listTools' || call.method === 'access') && /(^|\.)catalog$/.test(call.receiver));

// Where the rule lives (disclosure/), where the allow-list it asks is defined (auth/), and the session store
// decorator that keeps a request's unlocks (it stores them; it decides nothing).
const ALLOWED = ['disclosure/', 'auth/accessPolicy.ts', 'legacy/withUnlockSnapshots.ts'];

describe('the disclosure rule', () => {
  it('is decided only in disclosure/: no other gateway module reads allow-lists, unlocks or builds tool views', async () => {
    const leaks = (await gatewayCalls())
      .filter((call) => isDecision(call) && !ALLOWED.some((allowed) => call.path.startsWith(allowed)))
      .map((call) => `${call.path}:${call.line}: ${call.receiver}.${call.method}`);
    expect(leaks).toEqual([]);
  });
});
