import { describe, expect, it } from 'vitest';
import { createSecretRedactor } from '../../../src/observability/redactSecrets.js';

const redactSecrets = (line: string, secrets: readonly string[] = []) => createSecretRedactor(secrets)(line);

describe('createSecretRedactor', () => {
  it.each([
    ['a bearer header value', '{"msg":"Authorization: Bearer abcdef0123456789"}', 'abcdef0123456789'],
    ['a Basic header value', '{"msg":"Basic dXNlcjpwYXNzd29yZA=="}', 'dXNlcjpwYXNzd29yZA'],
    ['a form parameter with a secret name', '{"msg":"body a=1&password=hunter2hunter2"}', 'hunter2'],
    ['a secret-named JSON field', '{"headers":{"authorization":"anything at all"}}', 'anything at all'],
    ['a nested token field', '{"a":{"refresh_token":"r-abc\\"def"}}', 'r-abc'],
    ['a JWT', '{"msg":"got eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"}', 'eyJhbGciOiJIUzI1NiJ9'],
    ['a GitHub token', '{"msg":"ghp_0123456789abcdefghijABCDEFGHIJ"}', 'ghp_0123456789'],
  ])('replaces %s with [redacted]', (_label, line, secret) => {
    const out = redactSecrets(line);
    expect(out).not.toContain(secret);
    expect(out).toContain('[redacted]');
  });

  it.each([
    ['a path in a message', '{"msg":"Route GET:/nope?access_token=tok-123456 not found"}', '/nope not found'],
    [
      'a URL field',
      '{"url":"https://h.example/p/q?API_KEY=k-987654#frag","n":1}',
      '"https://h.example/p/q","n"',
    ],
  ])('drops the query string of %s', (_label, line, kept) => {
    const out = redactSecrets(line);
    expect(out).toContain(kept);
    expect(out).not.toContain('?');
  });

  it('removes each given secret value wherever it appears', () => {
    expect(
      redactSecrets('{"msg":"x my-configured-token y","e":"my-configured-token"}', ['my-configured-token']),
    ).toBe('{"msg":"x [redacted] y","e":"[redacted]"}');
  });

  it('keeps ordinary lines, session ids and short prose about tokens as they are', () => {
    const line =
      '{"level":30,"reqId":"6f1c2a9e-8d4b-4c1e-9a0f-3b2d1c0e9f8a","session":"0b7e4a52-1c3d-4e5f-8a9b-0c1d2e3f4a5b","msg":"missing bearer token","url":"/mcp"}';
    expect(redactSecrets(line)).toBe(line);
  });

  it('handles megabyte lines built to make its patterns backtrack in linear time', () => {
    const started = performance.now();
    for (const line of [
      `{"msg":"/${'a/'.repeat(500_000)}"}`,
      `{"msg":"&${'token'.repeat(200_000)}"}`,
      `{"${'token'.repeat(200_000)}":1}`,
      `{"msg":"bearer ${' '.repeat(1_000_000)}x"}`,
    ]) {
      redactSecrets(line);
    }
    // Linear work is a few milliseconds here; quadratic work would take minutes.
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
