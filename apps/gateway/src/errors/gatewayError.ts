/** Stable codes of every error the gateway answers with; the one table below maps them to HTTP and JSON-RPC. */
export type GatewayErrorCode =
  | 'PARSE_ERROR'
  | 'INVALID_REQUEST'
  | 'SESSION_REQUIRED'
  | 'SESSION_NOT_FOUND'
  | 'SESSION_LIMIT'
  | 'UNAUTHORIZED'
  | 'INSUFFICIENT_SCOPE'
  | 'NOT_ADMIN'
  | 'FORBIDDEN_ORIGIN'
  | 'FORBIDDEN_HOST'
  | 'RATE_LIMITED'
  | 'BODY_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'METHOD_NOT_ALLOWED'
  | 'UNSUPPORTED_PROTOCOL_VERSION'
  | 'SHUTTING_DOWN'
  | 'STATE_UNAVAILABLE'
  | 'STATE_FULL'
  | 'UNKNOWN_TOOL'
  | 'INVALID_ARGUMENTS'
  | 'NOT_ACCEPTABLE'
  | 'STREAM_CONFLICT'
  | 'SESSION_PROTOCOL_VERSION'
  | 'RESPONSE_TOO_LARGE'
  | 'RESOURCE_TOO_LARGE'
  | 'RESOURCE_CHANGED'
  | 'RESOURCE_UNREADABLE'
  | 'URL_ELICITATION_REQUIRED'
  | 'INVALID_REQUEST_STATE'
  | 'CONNECT_REFUSED'
  | 'CONNECT_LINK_EXPIRED'
  | 'CONNECT_PROVIDER_FAILED'
  | 'INTERNAL';

/** The HTTP status and JSON-RPC code one GatewayErrorCode is answered with. */
export interface ErrorMapping {
  readonly status: number;
  readonly rpcCode: number;
}

// JSON-RPC codes: -32700 parse, -32600 invalid request, -32602 invalid params, -32603 internal;
// -32000/-32001 are the codes the MCP SDK itself uses for transport and session errors.
/** Every gateway error code with its HTTP status and JSON-RPC code (docs/errors.md lists the same, checked by a test). */
export const ERROR_TABLE: Readonly<Record<GatewayErrorCode, ErrorMapping>> = {
  PARSE_ERROR: { status: 400, rpcCode: -32700 },
  INVALID_REQUEST: { status: 400, rpcCode: -32600 },
  SESSION_REQUIRED: { status: 400, rpcCode: -32000 },
  SESSION_NOT_FOUND: { status: 404, rpcCode: -32001 },
  SESSION_LIMIT: { status: 503, rpcCode: -32000 },
  UNAUTHORIZED: { status: 401, rpcCode: -32000 },
  INSUFFICIENT_SCOPE: { status: 403, rpcCode: -32000 },
  NOT_ADMIN: { status: 403, rpcCode: -32000 },
  FORBIDDEN_ORIGIN: { status: 403, rpcCode: -32000 },
  FORBIDDEN_HOST: { status: 403, rpcCode: -32000 },
  RATE_LIMITED: { status: 429, rpcCode: -32000 },
  BODY_TOO_LARGE: { status: 413, rpcCode: -32600 },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, rpcCode: -32600 },
  METHOD_NOT_ALLOWED: { status: 405, rpcCode: -32000 },
  UNSUPPORTED_PROTOCOL_VERSION: { status: 400, rpcCode: -32022 },
  SHUTTING_DOWN: { status: 503, rpcCode: -32000 },
  STATE_UNAVAILABLE: { status: 503, rpcCode: -32000 },
  STATE_FULL: { status: 503, rpcCode: -32000 },
  UNKNOWN_TOOL: { status: 200, rpcCode: -32602 },
  INVALID_ARGUMENTS: { status: 200, rpcCode: -32602 },
  NOT_ACCEPTABLE: { status: 406, rpcCode: -32000 },
  STREAM_CONFLICT: { status: 409, rpcCode: -32000 },
  SESSION_PROTOCOL_VERSION: { status: 400, rpcCode: -32000 },
  // Answered in place of one result inside a response that is already under way (its status stays 200).
  RESPONSE_TOO_LARGE: { status: 200, rpcCode: -32603 },
  // resources/read of a skill:// file that cannot be served whole (docs/skills-extension.md).
  RESOURCE_TOO_LARGE: { status: 200, rpcCode: -32603 },
  RESOURCE_CHANGED: { status: 200, rpcCode: -32603 },
  RESOURCE_UNREADABLE: { status: 200, rpcCode: -32603 },
  // A 2025-era tool call that needs the caller to connect an account first (docs/credentials.md, "Asking").
  URL_ELICITATION_REQUIRED: { status: 200, rpcCode: -32042 },
  // A 2026-07-28 retry whose requestState the gateway did not mint, or minted for another call or principal.
  INVALID_REQUEST_STATE: { status: 200, rpcCode: -32602 },
  // The connect pages (/connect, /connections): answered as small pages, never as JSON-RPC.
  CONNECT_REFUSED: { status: 403, rpcCode: -32000 },
  CONNECT_LINK_EXPIRED: { status: 404, rpcCode: -32000 },
  CONNECT_PROVIDER_FAILED: { status: 502, rpcCode: -32000 },
  INTERNAL: { status: 500, rpcCode: -32603 },
};

/** The one error class of the gateway; `status` and `rpcCode` derive from `code`. */
export class GatewayError extends Error {
  readonly code: GatewayErrorCode;
  readonly status: number;
  readonly rpcCode: number;
  /** Extra response headers (Retry-After, WWW-Authenticate, Allow). */
  readonly headers: Readonly<Record<string, string>>;
  /** Extra members of the JSON-RPC error's `data` (e.g. the supported revisions of -32022). */
  readonly data: Readonly<Record<string, unknown>>;
  /** The id of the request refused, when it is known before the request body is (a body refused at parse). */
  readonly requestId: string | number | null | undefined;

  constructor(
    code: GatewayErrorCode,
    message: string,
    options?: {
      cause?: unknown;
      headers?: Readonly<Record<string, string>>;
      data?: Readonly<Record<string, unknown>>;
      requestId?: string | number | null;
    },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GatewayError';
    this.code = code;
    this.status = ERROR_TABLE[code].status;
    this.rpcCode = ERROR_TABLE[code].rpcCode;
    this.headers = options?.headers ?? {};
    this.data = options?.data ?? {};
    this.requestId = options?.requestId;
  }

  /** The JSON-RPC error body sent for this error (id null when the request id is unknown). */
  toJsonRpc(id: string | number | null = null): {
    jsonrpc: '2.0';
    id: string | number | null;
    error: { code: number; message: string; data: { reason: string } };
  } {
    return {
      jsonrpc: '2.0',
      id,
      error: { code: this.rpcCode, message: this.message, data: { ...this.data, reason: this.code } },
    };
  }
}
