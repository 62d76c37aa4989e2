import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';

/**
 * Errors whose wording and `data` the MCP SDK defines: the gateway's direct paths answer requests without the
 * SDK's server and must write exactly what the SDK's path writes (docs/errors.md, "Errors the SDK defines";
 * the direct-path tests compare the bytes). Every such answer is made here, nowhere else; the gateway's own
 * errors go through ERROR_TABLE (gatewayError.ts).
 */
export const SDK_ERRORS = {
  /** A tool result that fails the protocol's CallToolResult schema. */
  invalidToolResult: () => new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid tools/call result'),
  /** resources/read of a URI that does not parse. */
  invalidResourceUri: (uri: string) =>
    new ProtocolError(ProtocolErrorCode.InvalidParams, `Resource URI ${uri} is invalid`, {
      uri,
      reason: 'invalid_uri',
    }),
  /** skills/get of a URI no skill of the caller's is served at. */
  noSkillAt: (uri: string) =>
    new ProtocolError(ProtocolErrorCode.InvalidParams, `No skill is served at ${uri}`),
  /** prompts/get of a prompt that does not exist or is not the caller's (the same answer for both). */
  promptNotFound: (name: string) =>
    new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${name} not found`),
  /** A skills/list cursor the gateway did not mint. */
  invalidCursor: () => new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor'),
} as const;
