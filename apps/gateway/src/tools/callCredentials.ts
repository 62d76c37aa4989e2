import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/server';
import type { Principal } from '../auth/accessPolicy.js';
import { type ConnectNeed, connectAnswer } from './connectAnswer.js';
import type { ToolCall } from './toolCall.js';

/** What a credential lookup found for one call (docs/credentials.md). */
export type CredentialLookup =
  /** Headers of an upstream call, or variables of a script run; empty when the target needs none. */
  | { readonly kind: 'ready'; readonly values: Readonly<Record<string, string>> }
  /** The caller has not connected the provider (or its connection was dropped): ask them to. */
  | { readonly kind: 'connect'; readonly need: ConnectNeed }
  /** The call cannot get a credential (a static token where only OAuth principals exchange, a provider down). */
  | { readonly kind: 'refused'; readonly reason: 'CREDENTIAL_UNAVAILABLE'; readonly message: string };

/**
 * Each caller's credentials for what sits behind the gateway, as tool calls use them; built over
 * @skillgate/credentials by compose/ (docs/credentials.md). Nothing it returns is logged or put in a result.
 */
export interface CallCredentials {
  /** The headers a call to this upstream sends for the caller; `ready` with none for an upstream without `auth`. */
  upstreamHeaders(request: CredentialRequest): Promise<CredentialLookup>;
  /** The upstream answered 401 to `sent` (what upstreamHeaders gave): that token is dropped so the retry refetches. */
  upstreamRefused(request: CredentialRequest, sent: Readonly<Record<string, string>>): Promise<void>;
  /** The variables a skill's scripts get for the caller (`scripts.credentials`); `ready` with none when unmapped. */
  scriptEnv(request: CredentialRequest): Promise<CredentialLookup>;
  /** A 2026-07-28 connect answer's requestState: authenticated, bound to the principal and tool, expiring with its flow. */
  mintRequestState(need: ConnectNeed, principal: Principal, tool: string): Promise<string>;
  /** Checks a retry's requestState; throws GatewayError INVALID_REQUEST_STATE unless it was minted for this principal and tool. */
  checkRequestState(state: string, principal: Principal, tool: string): Promise<void>;
}

/** Whose credential for what: the upstream's id or the skill's name, and the tool the person called. */
export interface CredentialRequest {
  /** The upstream's id (upstreamHeaders) or the skill's name (scriptEnv). */
  readonly target: string;
  readonly principal: Principal;
  /** The request's validated OAuth access token: a token exchange's subject, nothing else. */
  readonly callerToken: string | undefined;
  /** The tool the person called, for the connect message. */
  readonly tool: string;
}

/**
 * Asks the caller to connect, in the way its client understands (tools/connectAnswer.ts): a 2025-era client
 * that declared URL elicitation gets -32042 (thrown), a 2026-07-28 one gets input_required with a requestState,
 * every other a CONNECT_REQUIRED tool error.
 */
export async function askToConnect(
  credentials: CallCredentials,
  call: ToolCall,
  need: ConnectNeed,
): Promise<CallToolResult | InputRequiredResult> {
  call.outcome = 'connect_required';
  const channel = call.connectChannel;
  if (channel !== 'input_required') return connectAnswer(channel, need);
  const state = await credentials.mintRequestState(need, call.audience.principal, call.name);
  return connectAnswer(channel, need, state);
}

/** A lookup that did not find what the call needs, as the answer the caller gets instead of the call. */
export function credentialRefusal(lookup: Extract<CredentialLookup, { kind: 'refused' }>): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `${lookup.reason}: ${lookup.message}` }],
    structuredContent: { reason: lookup.reason, message: lookup.message },
  };
}
