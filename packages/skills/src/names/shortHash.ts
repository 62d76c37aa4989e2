import { createHash } from 'node:crypto';

/** First 6 hex chars of the sha256 of `text`: short, stable, and valid in a tool name. */
export function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 6);
}
