import type { ServerResponse } from 'node:http';

// setTimeout fires at once past this delay (about 24.8 days): a credential valid longer gets no timer.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Closes a long-lived response (an SSE stream: a GET stream, a subscriptions/listen stream) when the
 * credential that opened it stops being valid. Every request re-checks its token, but a stream is one
 * request: without this, a stream opened with an access token kept receiving notifications after the token
 * expired. The client reconnects with a fresh token (docs/auth.md, "Streams"). `validUntil` is in ms since the
 * epoch; the connection is destroyed (an SSE writer may still be writing, and a write after end would throw).
 */
export function endAtCredentialExpiry(response: ServerResponse, validUntil: number, now = Date.now()): void {
  const delay = validUntil - now;
  if (delay > MAX_TIMER_MS) return;
  const timer = setTimeout(() => response.destroy(), Math.max(0, delay));
  timer.unref();
  response.once('close', () => clearTimeout(timer));
}
