import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_TABLE } from '../../../src/errors/gatewayError.js';
import { REPO_ROOT } from '../../helpers/testGateway.js';

/** The code | HTTP | JSON-RPC rows of docs/errors.md's table. */
async function documentedErrors(): Promise<Map<string, { status: number; rpcCode: number }>> {
  const text = await readFile(join(REPO_ROOT, 'docs/errors.md'), 'utf8');
  const rows = new Map<string, { status: number; rpcCode: number }>();
  for (const match of text.matchAll(/^\| `([A-Z_]+)` \| (\d+) \| (-\d+) \|/gm)) {
    const [, code, status, rpcCode] = match;
    if (code !== undefined) rows.set(code, { status: Number(status), rpcCode: Number(rpcCode) });
  }
  return rows;
}

describe('docs/errors.md', () => {
  it('lists every error code with the HTTP status and JSON-RPC code the gateway answers with', async () => {
    const documented = await documentedErrors();
    for (const [code, mapping] of Object.entries(ERROR_TABLE)) {
      expect(documented.get(code), code).toEqual({ status: mapping.status, rpcCode: mapping.rpcCode });
    }
  });

  it('lists no code the gateway does not have', async () => {
    const documented = await documentedErrors();
    expect(documented.size).toBeGreaterThan(0);
    expect([...documented.keys()].filter((code) => !(code in ERROR_TABLE))).toEqual([]);
  });
});
