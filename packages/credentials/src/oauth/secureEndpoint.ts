import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { CredentialsError } from '../credentialsError.js';

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

// The same rule as the config's isLoopbackHost (packages/config), applied again here to endpoints that come
// from a provider's metadata, which no config check saw.
const isLoopbackHost = (host: string): boolean => {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h === 'localhost.') return true;
  if (isIPv4(h)) return loopback.check(h, 'ipv4');
  if (isIPv6(h)) return loopback.check(h, 'ipv6');
  return false;
};

/** Whether a URL is http:// on a loopback host (the one case the gateway sends tokens without TLS). */
export function isLoopbackHttp(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' && isLoopbackHost(url.hostname);
  } catch {
    return false;
  }
}

/** Throws INSECURE_ENDPOINT unless the URL is https:// (or http:// on loopback) without credentials. */
export function assertSecureEndpoint(value: string, what: string, provider: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch (error) {
    throw new CredentialsError('INSECURE_ENDPOINT', `${what} of ${provider} is not a URL`, {
      cause: error,
      provider,
    });
  }
  if (url.username !== '' || url.password !== '' || !(url.protocol === 'https:' || isLoopbackHttp(value))) {
    throw new CredentialsError(
      'INSECURE_ENDPOINT',
      `${what} of ${provider} must be https:// (http:// only on a loopback address), without credentials`,
      { provider },
    );
  }
  return url;
}
