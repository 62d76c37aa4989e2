import { createHash, type Hash } from 'node:crypto';

/** `sha256:<64 lowercase hex>` of `bytes`, the digest format of the Skills extension. */
export function sha256Digest(bytes: Uint8Array): string {
  return formatDigest(createHash('sha256').update(bytes));
}

/** Finishes a running sha256 hash in the Skills extension's `sha256:<hex>` format. */
export function formatDigest(hash: Hash): string {
  return `sha256:${hash.digest('hex')}`;
}
