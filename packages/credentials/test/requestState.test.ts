import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createRequestStateCodec } from '../src/flows/requestState.js';
import { CredentialsError } from '../src/index.js';
import { createKeyRing, decodeKey } from '../src/keys/keyRing.js';

const key = (id: string) => decodeKey(id, randomBytes(32).toString('base64'));
const codeOf = (run: () => unknown): string | undefined => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CredentialsError);
    return (error as CredentialsError).code;
  }
  return undefined;
};

describe('requestState', () => {
  let clock = 1_000_000;
  const now = () => clock;
  const claims = {
    flow: 'f'.repeat(22),
    principal: 'token:alice',
    subject: 'tool:github/search',
    expiresAt: clock + 600_000,
  };

  it('round-trips, shows nothing of its claims, and opens after a key rotation', () => {
    const k1 = key('k1');
    const codec = createRequestStateCodec(createKeyRing([k1]), now);
    const value = codec.encode(claims);
    expect(value).not.toContain('alice');
    expect(codec.decode(value)).toEqual(claims);
    expect(createRequestStateCodec(createKeyRing([key('k2'), k1]), now).decode(value)).toEqual(claims);
  });

  it('refuses a tampered, foreign or malformed value with REQUEST_STATE_INVALID', () => {
    const codec = createRequestStateCodec(createKeyRing([key('k1')]), now);
    const value = codec.encode(claims);
    const flipped = `${value.slice(0, -2)}${value.endsWith('A') ? 'B' : 'A'}${value.slice(-1)}`;
    expect(codeOf(() => codec.decode(flipped))).toBe('REQUEST_STATE_INVALID');
    const foreign = createRequestStateCodec(createKeyRing([key('k1')]), now).encode(claims);
    expect(codeOf(() => codec.decode(foreign))).toBe('REQUEST_STATE_INVALID');
    expect(codeOf(() => codec.decode('garbage'))).toBe('REQUEST_STATE_INVALID');
    expect(codeOf(() => codec.decode('x'.repeat(5000)))).toBe('REQUEST_STATE_INVALID');
  });

  it('expires with its flow (REQUEST_STATE_EXPIRED)', () => {
    const codec = createRequestStateCodec(createKeyRing([key('k1')]), now);
    const value = codec.encode(claims);
    clock += 600_001;
    expect(codeOf(() => codec.decode(value))).toBe('REQUEST_STATE_EXPIRED');
  });
});
