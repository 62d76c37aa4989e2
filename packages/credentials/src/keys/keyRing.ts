import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { CredentialsError } from '../credentialsError.js';
import type { KeySettings } from '../settings.js';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const VERSION = 'v1';

/** One AES-256-GCM key of the ring. */
export interface RingKey {
  readonly id: string;
  readonly key: Buffer;
}

/** What a sealed value is bound to: it opens only for the same context (principal and provider for records). */
export type SealContext = readonly string[];

/** A value that opened: its bytes, and whether an older key sealed it (then it should be sealed again). */
export interface Opened {
  readonly value: Buffer;
  readonly stale: boolean;
}

/** AES-256-GCM under a ring of keys: the first seals, every one opens. */
export interface KeyRing {
  /** The sealing key's id. */
  readonly currentKeyId: string;
  /** `v1.<kid>.<iv>.<ciphertext+tag>` (base64url parts); the additional data binds context and key id. */
  seal(value: Buffer | string, context: SealContext): string;
  /** The value, or undefined when it does not open (another context, a removed key, tampered). Never throws. */
  open(sealed: string, context: SealContext): Opened | undefined;
  /** A key derived from the sealing key for another purpose (HKDF-SHA256 with `info`), with every older one. */
  derive(info: string): readonly RingKey[];
}

// JSON of the parts is unambiguous whatever characters a principal id holds; the key id is part of it, so a
// record cannot be relabelled to be tried under another key.
const additionalData = (context: SealContext, keyId: string): Buffer =>
  Buffer.from(JSON.stringify([VERSION, keyId, ...context]), 'utf8');

/** Decodes a configured key: 32 bytes of base64 (standard or url-safe), surrounding whitespace ignored. */
export function decodeKey(id: string, text: string): RingKey {
  const trimmed = text.trim();
  const key = /^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed) ? Buffer.from(trimmed, 'base64') : Buffer.alloc(0);
  if (key.length !== KEY_BYTES) {
    throw new CredentialsError(
      'KEY_INVALID',
      `credentials key "${id}" is not ${KEY_BYTES} bytes of base64 (make one with: openssl rand -base64 32)`,
    );
  }
  return { id, key };
}

/** Reads every configured key from the environment or its file; a missing or malformed one throws KEY_INVALID. */
export function loadKeys(
  keys: readonly KeySettings[],
  env: Readonly<Record<string, string | undefined>>,
): RingKey[] {
  return keys.map((k) => {
    if (k.env !== undefined) {
      const value = env[k.env];
      if (value === undefined || value.trim() === '') {
        throw new CredentialsError(
          'KEY_INVALID',
          `credentials key "${k.id}": environment variable ${k.env} is not set`,
        );
      }
      return decodeKey(k.id, value);
    }
    if (k.file !== undefined) {
      let text: string;
      try {
        text = readFileSync(k.file, 'utf8');
      } catch (error) {
        throw new CredentialsError('KEY_INVALID', `credentials key "${k.id}": cannot read ${k.file}`, {
          cause: error,
        });
      }
      return decodeKey(k.id, text);
    }
    throw new CredentialsError('KEY_INVALID', `credentials key "${k.id}" names neither env nor file`);
  });
}

/** A key ring over decoded keys; the first seals. */
export function createKeyRing(keys: readonly RingKey[]): KeyRing {
  const [current] = keys;
  if (current === undefined) throw new CredentialsError('KEY_INVALID', 'credentials.keys is empty');
  const byId = new Map(keys.map((k) => [k.id, k]));

  return {
    currentKeyId: current.id,
    seal(value, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current.key, iv);
      cipher.setAAD(additionalData(context, current.id));
      const body = Buffer.concat([
        cipher.update(typeof value === 'string' ? Buffer.from(value, 'utf8') : value),
        cipher.final(),
        cipher.getAuthTag(),
      ]);
      return [VERSION, current.id, iv.toString('base64url'), body.toString('base64url')].join('.');
    },
    open(sealed, context) {
      const [version, keyId, ivText, bodyText, extra] = sealed.split('.');
      if (version !== VERSION || keyId === undefined || ivText === undefined || bodyText === undefined)
        return undefined;
      if (extra !== undefined) return undefined;
      const key = byId.get(keyId);
      if (key === undefined) return undefined;
      const iv = Buffer.from(ivText, 'base64url');
      const body = Buffer.from(bodyText, 'base64url');
      if (iv.length !== IV_BYTES || body.length < TAG_BYTES) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key.key, iv);
        decipher.setAAD(additionalData(context, keyId));
        decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
        const value = Buffer.concat([
          decipher.update(body.subarray(0, body.length - TAG_BYTES)),
          decipher.final(),
        ]);
        return { value, stale: keyId !== current.id };
      } catch {
        return undefined;
      }
    },
    derive(info) {
      return keys.map((k) => ({
        id: k.id,
        key: Buffer.from(hkdfSync('sha256', k.key, Buffer.alloc(0), `skillgate ${info}`, KEY_BYTES)),
      }));
    },
  };
}
