import { isLoopbackHost } from '@skillgate/config';
import { GatewayError } from '../errors/gatewayError.js';

/** Options of the Origin/Host checks (DNS-rebinding protection; docs/decisions.md). */
export interface OriginPolicyOptions {
  /** The address the gateway is bound to. */
  readonly boundHost: string;
  /** Exact Origin values always allowed. */
  readonly allowedOrigins: readonly string[];
}

/** Decides whether a browser Origin (and the Host header) may reach the MCP endpoint. */
export interface OriginPolicy {
  /** Throws FORBIDDEN_ORIGIN / FORBIDDEN_HOST; returns the origin to echo in CORS headers, if any. */
  check(origin: string | undefined, host: string | undefined): string | undefined;
}

const hostnameOf = (hostHeader: string): string => {
  try {
    return new URL(`http://${hostHeader}`).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return '';
  }
};

// Host headers whose verdict is remembered: every request of a client repeats the same one, and parsing it
// (URL, BlockList) is a visible share of a small request's cost. Bounded: a flood of made-up hosts only
// refills the table.
const MAX_REMEMBERED_HOSTS = 256;

/** Builds the Origin/Host policy: loopback origins are allowed only when the gateway is bound to loopback. */
export function createOriginPolicy(options: OriginPolicyOptions): OriginPolicy {
  const loopbackBound = isLoopbackHost(options.boundHost);
  const allowed = new Set(options.allowedOrigins);
  const loopbackHosts = new Map<string, boolean>();
  const isLoopbackHostHeader = (host: string): boolean => {
    let verdict = loopbackHosts.get(host);
    if (verdict === undefined) {
      verdict = isLoopbackHost(hostnameOf(host));
      if (loopbackHosts.size >= MAX_REMEMBERED_HOSTS) loopbackHosts.clear();
      loopbackHosts.set(host, verdict);
    }
    return verdict;
  };
  return {
    check(origin, host) {
      // A page on another site resolving its own name to 127.0.0.1 still sends its own Host: refuse it.
      if (loopbackBound && host !== undefined && !isLoopbackHostHeader(host)) {
        throw new GatewayError('FORBIDDEN_HOST', `Host ${host} is not allowed`);
      }
      if (origin === undefined) return undefined;
      if (allowed.has(origin)) return origin;
      let originHost = '';
      try {
        originHost = new URL(origin).hostname.replace(/^\[|\]$/g, '');
      } catch {
        throw new GatewayError('FORBIDDEN_ORIGIN', `Origin ${origin} is not allowed`);
      }
      if (loopbackBound && isLoopbackHost(originHost)) return origin;
      throw new GatewayError('FORBIDDEN_ORIGIN', `Origin ${origin} is not allowed`);
    },
  };
}
