import {
  classifyInboundRequest,
  type InitializeRequest,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../auth/accessPolicy.js';
import { type PlainRequest, plainRequestOf } from '../direct/plainRequest.js';
import { GatewayError } from '../errors/gatewayError.js';
import type { LiveSession, LiveSessions } from '../legacy/liveSessions.js';
import { BATCH_REFUSED } from './jsonBodyParser.js';

/** The revisions of the 2026 era this gateway serves: what server/discover lists. */
const MODERN_REVISIONS: readonly string[] = ['2026-07-28'];
/** Envelopes remembered as accepted at most (routeRequest's memo; a client has one). */
const MAX_ACCEPTED_ENVELOPES = 256;
/** Every revision of both eras, newest first. */
const ALL_REVISIONS: readonly string[] = [...MODERN_REVISIONS, ...SUPPORTED_PROTOCOL_VERSIONS];

/**
 * -32022 for a request of the 2026 shape lists exactly what server/discover lists (the spec requires the two
 * to agree; 2025-era revisions are reached through `initialize`, which dual-era clients fall back to). A
 * 2025-shaped request naming an unknown revision in its header gets every revision of both eras.
 */
const unsupportedRevision = (requested: string, supported: readonly string[]) =>
  new GatewayError('UNSUPPORTED_PROTOCOL_VERSION', `Unsupported protocol version: ${requested}`, {
    data: { supported, requested },
  });

/** Where one MCP request goes: a 2025-era session, the modern side, or the modern side's direct path. */
export type RequestRoute =
  | { readonly era: 'legacy'; readonly session: LiveSession }
  | { readonly era: 'modern'; readonly listen: boolean }
  | { readonly era: 'modern-direct'; readonly request: PlainRequest };

/** Options of createRequestRouter. */
export interface RequestRouterOptions {
  readonly sessions: Pick<LiveSessions, 'find' | 'open'>;
  /** Whether plain 2026-07-28 hot requests take the direct path. */
  readonly direct: boolean;
  /** Whether prompts are served (`skills.prompts`): only then does the direct path answer prompts/*. */
  readonly prompts: boolean;
}

/** The era router of the MCP endpoint. */
export type RequestRouter = (
  request: FastifyRequest,
  principal: Principal,
  sessionId: string,
) => Promise<RequestRoute>;

/**
 * Picks the era of a request (docs/protocol-eras.md): a session id means a 2025-era session; an
 * `initialize` opens one; anything carrying the 2026-07-28 envelope (or claiming it badly) goes to the
 * modern side, which owns those answers; the rest is 2025-era traffic without a session.
 */
export function createRequestRouter(options: RequestRouterOptions): RequestRouter {
  const { sessions } = options;
  // Envelopes (`_meta` as JSON) the SDK's classifier accepted on a plain request: a client sends the same one
  // with every request, and for a plain request (direct/plainRequest.ts) the classifier's verdict depends on nothing
  // else, so it is asked once per envelope instead of three schema guesses and an envelope parse per request.
  // Bounded: cleared when full, so distinct envelopes cost a classification each, never memory.
  const acceptedEnvelopes = new Set<string>();
  // The envelope accepted last, as a copy of its own: a client's next request is compared with it member by
  // member, which costs less than writing the request's envelope as JSON to look it up.
  let lastEnvelope: unknown;
  const accepted = (plain: PlainRequest, envelopeKey: string) => {
    if (acceptedEnvelopes.size >= MAX_ACCEPTED_ENVELOPES) acceptedEnvelopes.clear();
    acceptedEnvelopes.add(envelopeKey);
    lastEnvelope = envelopeKey === '' ? undefined : JSON.parse(envelopeKey);
    return { era: 'modern-direct' as const, request: plain };
  };
  return async (request, principal, sessionId) => {
    if (sessionId !== '') {
      const session = await sessions.find(sessionId, principal);
      if (session === undefined) throw new GatewayError('SESSION_NOT_FOUND', 'Session not found');
      return { era: 'legacy' as const, session };
    }
    if (request.method !== 'POST') {
      // No sessions outside the 2025 era: GET and DELETE need one.
      throw new GatewayError('METHOD_NOT_ALLOWED', 'Method not allowed without an Mcp-Session-Id', {
        headers: { Allow: 'POST' },
      });
    }
    const body = request.body;
    if (body === undefined || body === null || typeof body !== 'object') {
      throw new GatewayError('INVALID_REQUEST', 'Invalid Request: expected a JSON-RPC message');
    }
    if (Array.isArray(body)) throw new GatewayError('INVALID_REQUEST', BATCH_REFUSED);
    const header = (name: string) => {
      const value = request.headers[name];
      return typeof value === 'string' ? value : undefined;
    };
    const plain = options.direct
      ? plainRequestOf(body, { era: 'modern', prompts: options.prompts, revisions: MODERN_REVISIONS, header })
      : undefined;
    if (plain !== undefined && lastEnvelope !== undefined && sameJson(plain.params?._meta, lastEnvelope))
      return { era: 'modern-direct' as const, request: plain };
    // The envelope as JSON: what the SDK's envelope check depends on.
    const envelopeKey = plain === undefined ? '' : JSON.stringify(plain.params?._meta);
    if (plain !== undefined && acceptedEnvelopes.has(envelopeKey)) return accepted(plain, envelopeKey);
    const outcome = classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: header('mcp-protocol-version'),
      mcpMethodHeader: header('mcp-method'),
      mcpNameHeader: header('mcp-name'),
      body,
    });
    if (outcome.kind === 'modern' && !MODERN_REVISIONS.includes(outcome.classification.revision ?? '')) {
      throw unsupportedRevision(outcome.classification.revision ?? 'unknown', MODERN_REVISIONS);
    }
    if (
      outcome.kind === 'modern' &&
      outcome.messageKind === 'request' &&
      outcome.message.method === 'tools/list' &&
      outcome.message.params?.cursor !== undefined
    ) {
      // The tool list is one page: no cursor names a page of it, so any cursor is refused at once instead of
      // taking the SDK's slow path (docs/limits.md, "Cursors").
      throw new GatewayError('INVALID_ARGUMENTS', 'Invalid params: unknown cursor (tools/list has one page)');
    }
    // A plain request the classifier routes to the modern side: its envelope is valid.
    if (plain !== undefined && outcome.kind === 'modern' && outcome.messageKind === 'request')
      return accepted(plain, envelopeKey);
    if (outcome.kind !== 'legacy') {
      const listen =
        outcome.kind === 'modern' &&
        outcome.messageKind === 'request' &&
        outcome.message.method === 'subscriptions/listen';
      return { era: 'modern' as const, listen };
    }
    const version = header('mcp-protocol-version');
    if (version !== undefined && !ALL_REVISIONS.includes(version))
      throw unsupportedRevision(version, ALL_REVISIONS);
    if (outcome.reason === 'initialize') {
      return { era: 'legacy' as const, session: await sessions.open(principal, body as InitializeRequest) };
    }
    throw new GatewayError('SESSION_REQUIRED', 'Bad Request: Mcp-Session-Id header is required');
  };
}

/**
 * Whether two parsed JSON values would be written as the same JSON text (members in the same order): the
 * equality the accepted-envelope memo is keyed by, without writing either. Depth is bounded by the body's
 * bounds (server.max_json_depth).
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  const keysOfA = Object.keys(a);
  const keysOfB = Object.keys(b);
  if (keysOfA.length !== keysOfB.length) return false;
  for (let i = 0; i < keysOfA.length; i++) {
    const key = keysOfA[i] as string;
    if (key !== keysOfB[i]) return false;
    if (!sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}
