/**
 * What the direct paths copy from the MCP TypeScript SDK, and the SDK versions it was checked against
 * (direct/README.md). When an SDK package's installed version differs from `checkedAgainst`,
 * test/directPaths/sdkParity.test.ts fails until each behaviour below has been compared with the new SDK (the
 * differential tests in test/directPaths/ do most of that) and the versions here are moved.
 */
export const SDK_PARITY = {
  checkedAgainst: {
    '@modelcontextprotocol/server': '2.4.0',
    '@modelcontextprotocol/node': '2.1.2',
  },
  /** Each behaviour, the file that reproduces it, and the SDK code it copies. */
  behaviours: [
    {
      behaviour: 'which requests the SDK answers without per-request state (plain requests, both eras)',
      file: 'direct/plainRequest.ts',
      sdk: 'classifyInboundRequest, the 2026-07-28 envelope check and the Mcp-Method/Mcp-Name header rules',
    },
    {
      behaviour: 'a 2026-07-28 result encoded: resultType stamped, cache fields filled, server info in _meta',
      file: 'direct/encodeResult.ts',
      sdk: "the rev2026-07-28 codec's encodeResult (stampResultType, fillCacheFields, stampServerInfoMeta)",
    },
    {
      behaviour: 'a tools/call result validated with the CallToolResult schema, content defaulted to []',
      file: 'direct/sdkWireAnswers.ts',
      sdk: "Server's tools/call result validation (specTypeSchemas.CallToolResult)",
    },
    {
      behaviour: 'resources/read of skill:// parsed as a URL, only skill:// served, text or base64 blob',
      file: 'direct/sdkWireAnswers.ts',
      sdk: "McpServer's resource template matching and the Skills extension's read",
    },
    {
      behaviour: 'errors written as the SDK writes them (-32002 as -32602, message and data)',
      file: 'direct/sdkWireAnswers.ts',
      sdk: "Protocol's error response for a thrown ProtocolError",
    },
    {
      behaviour: 'the response bytes: result before jsonrpc and id, one JSON body with Content-Length',
      file: 'direct/resultWriter.ts',
      sdk: "the Node transport's JSON response (serializeMessage key order)",
    },
    {
      behaviour:
        "a 2025-era session's cancellation: notifications/cancelled aborts the handler, no answer follows",
      file: 'direct/sessionCalls.ts',
      sdk: "Protocol's _onrequest abort controllers and _oncancel",
    },
    {
      behaviour: 'tools/list of a 2025-era session wrapped by the 2025 codec where an output schema needs it',
      file: 'direct/sessionAnswers.ts',
      sdk: "the 2025 codec's tools/list encode (wrapsOutputSchema)",
    },
    {
      behaviour:
        'lists and server/discover rendered once by the SDK path and replayed with the id spliced in',
      file: 'direct/modernAnswers.ts',
      sdk: 'createMcpHandler per-request server answers (rendered, not copied)',
    },
  ],
} as const;
