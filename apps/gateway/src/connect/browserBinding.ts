import type { RequestStateCodec, SignInSecrets } from '@skillgate/credentials';
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';

const BINDING_MS = 10 * 60_000;
// The binding cookie is sealed by the requestState codec with this subject, which no tool name can be: a
// requestState is never a binding, and a binding never a requestState.
const BINDING_SUBJECT = '\u0000browser';
/** The binding of /connections is to the principal alone, not to a flow. */
export const NO_FLOW = '';
// A sign-in for /connections keeps its secrets in the cookie under this subject (nothing is stored for an
// unauthenticated page): only the browser that started it can complete it, so a callback link sent by
// someone else cannot sign a person's browser in as the sender (login CSRF).
const SIGN_IN_SUBJECT = '\u0000sign-in';

/** Which principal a browser proved to be, per flow: a sealed, HttpOnly cookie (docs/credentials.md). */
export interface BrowserBinding {
  /** The principal this browser proved to be, for `flow` (NO_FLOW: for /connections). */
  ownerOf(request: FastifyRequest, flow: string): string | undefined;
  /** Binds the browser to `owner` for `flow`, for 10 minutes. */
  bind(reply: FastifyReply, owner: string, flow: string): void;
  /** The secrets of the sign-in this browser started (/connections/sign-in), or undefined. */
  signInOf(request: FastifyRequest): SignInSecrets | undefined;
  /** Keeps a sign-in's secrets in the browser (replacing any binding) for 10 minutes. */
  startSignIn(reply: FastifyReply, secrets: SignInSecrets): void;
}

/** The binding cookie, sealed by the requestState codec; `__Host-` prefixed and Secure behind https. */
export function createBrowserBinding(
  requestState: RequestStateCodec,
  secureCookies: boolean,
): BrowserBinding {
  const cookieName = secureCookies ? '__Host-skillgate-connect' : 'skillgate-connect';
  const claimsOf = (request: FastifyRequest) => {
    const header = request.headers.cookie;
    const value = header === undefined ? undefined : parseCookies(header)[cookieName];
    if (value === undefined || value === '') return undefined;
    try {
      return requestState.decode(value);
    } catch {
      return undefined;
    }
  };
  const setCookie = (reply: FastifyReply, flow: string, principal: string, subject: string): void => {
    const value = requestState.encode({ flow, principal, subject, expiresAt: Date.now() + BINDING_MS });
    // Lax: the provider's redirect back to /connect/callback is a top-level GET from its site and must carry
    // it; the forms that change anything are POSTs, which Lax keeps from other sites (and Origin is checked).
    reply.header(
      'Set-Cookie',
      serializeCookie(cookieName, value, {
        httpOnly: true,
        secure: secureCookies,
        sameSite: 'lax',
        path: '/',
        maxAge: BINDING_MS / 1000,
      }),
    );
  };
  return {
    ownerOf(request, flow) {
      const claims = claimsOf(request);
      return claims?.subject === BINDING_SUBJECT && claims.flow === flow ? claims.principal : undefined;
    },
    bind: (reply, owner, flow) => setCookie(reply, flow, owner, BINDING_SUBJECT),
    signInOf(request) {
      const claims = claimsOf(request);
      if (claims?.subject !== SIGN_IN_SUBJECT) return undefined;
      try {
        const { verifier, nonce } = JSON.parse(claims.principal) as { verifier: string; nonce: string };
        return { state: claims.flow, verifier, nonce };
      } catch {
        return undefined;
      }
    },
    startSignIn(reply, secrets) {
      const { verifier, nonce } = secrets;
      setCookie(reply, secrets.state, JSON.stringify({ verifier, nonce }), SIGN_IN_SUBJECT);
    },
  };
}
