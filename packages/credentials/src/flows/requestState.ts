import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { CredentialsError } from '../credentialsError.js';
import type { KeyRing } from '../keys/keyRing.js';

/** What a 2026-07-28 `input_required` retry carries back: the flow it waits for and what the retry must match. */
export interface RequestStateClaims {
  /** The connect flow's id. */
  readonly flow: string;
  /** The principal the retry must come from. */
  readonly principal: string;
  /** What else the retry must match (e.g. the tool name and a digest of its arguments), opaque here. */
  readonly subject: string;
  /** Epoch ms; the flow's expiry. */
  readonly expiresAt: number;
}

/** Seals and opens requestState values (AES-256-GCM under a key derived from the key ring). */
export interface RequestStateCodec {
  encode(claims: RequestStateClaims): string;
  /** The claims, or throws CredentialsError REQUEST_STATE_INVALID (tampered, foreign) or REQUEST_STATE_EXPIRED. */
  decode(value: string): RequestStateClaims;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
const AAD = Buffer.from('skillgate requestState v1');
// A requestState is sent back by the client as it got it; past this, it is not one of ours.
const MAX_CHARS = 4096;

const invalid = (): CredentialsError =>
  new CredentialsError('REQUEST_STATE_INVALID', 'requestState was not issued by this gateway or was changed');

/**
 * requestState is opaque to the client and authenticated: it is encrypted as well, so that it shows the
 * client nothing (not the principal id) and cannot be edited. Every key of the ring opens it, so a rotation
 * during the 10 minutes of a flow loses nothing.
 */
export function createRequestStateCodec(ring: KeyRing, now: () => number = Date.now): RequestStateCodec {
  const keys = ring.derive('requestState');
  const byId = new Map(keys.map((k) => [k.id, k.key]));
  const [current] = keys;
  if (current === undefined) throw invalid();

  return {
    encode(claims) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current.key, iv);
      cipher.setAAD(Buffer.concat([AAD, Buffer.from(current.id)]));
      const body = Buffer.concat([
        cipher.update(JSON.stringify(claims), 'utf8'),
        cipher.final(),
        cipher.getAuthTag(),
      ]);
      return ['rs1', current.id, iv.toString('base64url'), body.toString('base64url')].join('.');
    },
    decode(value) {
      if (typeof value !== 'string' || value.length > MAX_CHARS) throw invalid();
      const [version, keyId, ivText, bodyText, extra] = value.split('.');
      if (
        version !== 'rs1' ||
        keyId === undefined ||
        ivText === undefined ||
        bodyText === undefined ||
        extra !== undefined
      ) {
        throw invalid();
      }
      const key = byId.get(keyId);
      const iv = Buffer.from(ivText, 'base64url');
      const body = Buffer.from(bodyText, 'base64url');
      if (key === undefined || iv.length !== IV_BYTES || body.length < TAG_BYTES) throw invalid();
      let claims: RequestStateClaims;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv);
        decipher.setAAD(Buffer.concat([AAD, Buffer.from(keyId)]));
        decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
        const plain = Buffer.concat([
          decipher.update(body.subarray(0, body.length - TAG_BYTES)),
          decipher.final(),
        ]);
        claims = JSON.parse(plain.toString('utf8')) as RequestStateClaims;
      } catch {
        throw invalid();
      }
      if (typeof claims.expiresAt !== 'number' || typeof claims.flow !== 'string') throw invalid();
      if (claims.expiresAt <= now()) {
        throw new CredentialsError('REQUEST_STATE_EXPIRED', 'requestState expired with its connect flow');
      }
      return claims;
    },
  };
}
