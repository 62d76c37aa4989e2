import type { RequestStateCodec } from '@skillgate/credentials';
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';

const BINDING_MS = 10 * 60_000;
// The binding cookie is sealed by the requestState codec with this subject, which no tool name can be: a
// requestState is never a binding, and a binding never a requestState.
const BINDING_SUBJECT = '\u0000browser';
/** The binding of /connections is to the principal alone, not to a flow. */
export const NO_FLOW = '';
/**
 * A browser that started a sign-in for /connections is bound to that sign-in's flow as this (no principal
 * has that name): only its own callback completes the sign-in, so a callback link sent by someone else
 * cannot sign a person's browser in as the sender (login CSRF).
 */
export const SIGNING_IN = '\u0000signing-in';

/** Which principal a browser proved to be, per flow: a sealed, HttpOnly cookie (docs/credentials.md). */
export interface BrowserBinding {
  /** The principal this browser proved to be, for `flow` (NO_FLOW: for /connections). */
  ownerOf(request: FastifyRequest, flow: string): string | undefined;
  /** Binds the browser to `owner` for `flow`, for 10 minutes. */
  bind(reply: FastifyReply, owner: string, flow: string): void;
}

/** The binding cookie, sealed by the requestState codec; `__Host-` prefixed and Secure behind https. */
export function createBrowserBinding(
  requestState: RequestStateCodec,
  secureCookies: boolean,
): BrowserBinding {
  const cookieName = secureCookies ? '__Host-skillgate-connect' : 'skillgate-connect';
  return {
    ownerOf(request, flow) {
      const header = request.headers.cookie;
      const value = header === undefined ? undefined : parseCookies(header)[cookieName];
      if (value === undefined || value === '') return undefined;
      try {
        const claims = requestState.decode(value);
        return claims.subject === BINDING_SUBJECT && claims.flow === flow ? claims.principal : undefined;
      } catch {
        return undefined;
      }
    },
    bind(reply, owner, flow) {
      const value = requestState.encode({
        flow,
        principal: owner,
        subject: BINDING_SUBJECT,
        expiresAt: Date.now() + BINDING_MS,
      });
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
    },
  };
}
