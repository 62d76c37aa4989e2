import { ProtocolError } from '@modelcontextprotocol/server';
import { CredentialsError, type CredentialsErrorCode } from '@skillgate/credentials';
import { SessionError, StateError } from '@skillgate/state';
import { GatewayError, type GatewayErrorCode } from './gatewayError.js';

// Fastify's own request errors that a client caused (everything else of Fastify's is internal).
const FASTIFY_ERRORS: Readonly<Record<string, GatewayErrorCode>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'BODY_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'INVALID_REQUEST',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'PARSE_ERROR',
};

// The credentials package's refusals a person or a client caused (docs/credentials.md); its messages carry
// ids and codes only, never a value, so they are sent as they are.
const CREDENTIALS_ERRORS: Partial<Readonly<Record<CredentialsErrorCode, GatewayErrorCode>>> = {
  FLOW_FORBIDDEN: 'CONNECT_REFUSED',
  FLOW_INVALID: 'CONNECT_LINK_EXPIRED',
  CALLBACK_REFUSED: 'CONNECT_PROVIDER_FAILED',
  PROVIDER_UNAVAILABLE: 'CONNECT_PROVIDER_FAILED',
  INSECURE_ENDPOINT: 'CONNECT_PROVIDER_FAILED',
  REQUEST_STATE_INVALID: 'INVALID_REQUEST_STATE',
  REQUEST_STATE_EXPIRED: 'INVALID_REQUEST_STATE',
  STORE_UNAVAILABLE: 'STATE_UNAVAILABLE',
};

/** The message of an INTERNAL error: the cause is logged, never sent. */
const INTERNAL_MESSAGE = 'Internal server error';

/**
 * Maps any error to the gateway's one error family: the one place where library errors (state, sessions,
 * Fastify) become gateway codes, for the HTTP error handler and for tool calls alike.
 */
export function toGatewayError(error: unknown, internalMessage = INTERNAL_MESSAGE): GatewayError {
  if (error instanceof GatewayError) return error;
  if (error instanceof StateError) {
    switch (error.code) {
      // The shared store is away: a clear 503, never a hang or a guess from memory.
      case 'STATE_UNAVAILABLE':
        return new GatewayError('STATE_UNAVAILABLE', 'Shared state is unavailable; try again shortly', {
          cause: error,
          headers: { 'Retry-After': '2' },
        });
      // Redis is at its maxmemory: said as such (operators fix that differently from an outage).
      case 'STATE_FULL':
        return new GatewayError(
          'STATE_FULL',
          'Shared state is full (Redis reached its maxmemory); try again later',
          {
            cause: error,
            headers: { 'Retry-After': '30' },
          },
        );
      // The store is closed only by a shutdown.
      case 'STATE_CLOSED':
        return new GatewayError('SHUTTING_DOWN', 'The gateway is shutting down', {
          cause: error,
          headers: { 'Retry-After': '5' },
        });
      default:
        break;
    }
  }
  if (error instanceof CredentialsError) {
    const code = CREDENTIALS_ERRORS[error.code];
    if (code !== undefined) return new GatewayError(code, error.message, { cause: error });
  }
  // The gateway-wide session cap (a principal's own cap evicts its longest-idle session instead).
  if (error instanceof SessionError) {
    return new GatewayError('SESSION_LIMIT', error.message, {
      cause: error,
      headers: { 'Retry-After': '30' },
    });
  }
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') {
    const code = FASTIFY_ERRORS[error.code];
    if (code !== undefined) return new GatewayError(code, error.message, { cause: error });
  }
  return new GatewayError('INTERNAL', internalMessage, { cause: error });
}

/** A gateway error as the SDK's ProtocolError, for handlers the SDK answers (tool calls). */
export const toProtocolError = (error: GatewayError): ProtocolError =>
  new ProtocolError(error.rpcCode, error.message, { ...error.data, reason: error.code });
