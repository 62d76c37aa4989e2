import { AsyncLocalStorage } from 'node:async_hooks';

// The request's validated OAuth access token, for the one use it has past the gateway's door: the subject of
// an RFC 8693 token exchange (docs/credentials.md). Held for the request's async work instead of threaded
// through both eras, both transports and the direct paths, none of which may read or forward it.
const current = new AsyncLocalStorage<string>();

/** Runs `serve` with `token` as the request's caller token; without one (static tokens), runs it as it is. */
export function withCallerToken<T>(token: string | undefined, serve: () => T): T {
  return token === undefined ? serve() : current.run(token, serve);
}

/** The validated OAuth access token of the request being served, if it came with one. */
export function callerToken(): string | undefined {
  return current.getStore();
}
