import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CredentialsError } from '../src/index.js';
import { createKeyRing, decodeKey, loadKeys } from '../src/keys/keyRing.js';

const key = (id: string) => decodeKey(id, randomBytes(32).toString('base64'));
const context = ['record', 'token:alice', 'github'];

describe('the key ring', () => {
  it('opens what it sealed, for the same context only', () => {
    const ring = createKeyRing([key('k1')]);
    const sealed = ring.seal('gho_secret', context);
    expect(sealed).not.toContain('gho_secret');
    expect(ring.open(sealed, context)?.value.toString()).toBe('gho_secret');
    expect(ring.open(sealed, context)?.stale).toBe(false);
    // Copied to another principal or provider: it does not open.
    expect(ring.open(sealed, ['record', 'token:mallory', 'github'])).toBeUndefined();
    expect(ring.open(sealed, ['record', 'token:alice', 'acme'])).toBeUndefined();
  });

  it('seals with the first key, opens with every key, and says when an older key sealed', () => {
    const k1 = key('k1');
    const k2 = key('k2');
    const old = createKeyRing([k1]).seal('v', context);
    const rotated = createKeyRing([k2, k1]);
    expect(rotated.open(old, context)).toEqual({ value: Buffer.from('v'), stale: true });
    expect(rotated.seal('v', context).split('.')[1]).toBe('k2');
    // The old key removed: the record is gone, not an error.
    expect(createKeyRing([k2]).open(old, context)).toBeUndefined();
  });

  it('refuses a record relabelled with another key id, and any changed byte', () => {
    const k1 = key('k1');
    const ring = createKeyRing([k1, { id: 'k0', key: k1.key }]);
    const sealed = ring.seal('v', context);
    expect(ring.open(sealed.replace('.k1.', '.k0.'), context)).toBeUndefined();
    const parts = sealed.split('.');
    const body = Buffer.from(parts[3] ?? '', 'base64url');
    body[0] = (body[0] ?? 0) ^ 1;
    expect(
      ring.open([parts[0], parts[1], parts[2], body.toString('base64url')].join('.'), context),
    ).toBeUndefined();
    expect(ring.open('not a record', context)).toBeUndefined();
    expect(ring.open(`${sealed}.extra`, context)).toBeUndefined();
  });

  it('reads keys from the environment and files, whitespace around them ignored', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sg-keys-'));
    const text = randomBytes(32).toString('base64');
    writeFileSync(join(dir, 'k1'), `\n  ${text}\n`);
    const keys = loadKeys(
      [
        { id: 'k2', env: 'KEY_2' },
        { id: 'k1', file: join(dir, 'k1') },
      ],
      { KEY_2: ` ${randomBytes(32).toString('base64')} ` },
    );
    expect(keys.map((k) => [k.id, k.key.length])).toEqual([
      ['k2', 32],
      ['k1', 32],
    ]);
    expect(keys[1]?.key.toString('base64')).toBe(text);
  });

  it.each([
    ['a short key', randomBytes(16).toString('base64')],
    ['a long key', randomBytes(48).toString('base64')],
    ['not base64', '!'.repeat(44)],
  ])('refuses %s with KEY_INVALID, never showing the value', (_what, value) => {
    const error = (() => {
      try {
        loadKeys([{ id: 'k1', env: 'K' }], { K: value });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(CredentialsError);
    expect((error as CredentialsError).code).toBe('KEY_INVALID');
    expect((error as CredentialsError).message).not.toContain(value);
  });

  it('refuses an unset variable and an unreadable file', () => {
    expect(() => loadKeys([{ id: 'k1', env: 'MISSING' }], {})).toThrow(/MISSING is not set/);
    expect(() => loadKeys([{ id: 'k1', file: '/nonexistent/key' }], {})).toThrow(/cannot read/);
  });
});
