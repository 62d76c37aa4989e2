// One MCP flow over raw HTTP (no dependencies, so it also runs beside a bare bundle):
// initialize, list, get_info (expects list_changed on the same stream), run a Python script.
const [url, token] = process.argv.slice(2);
const headers = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  authorization: `Bearer ${token}`,
};

async function rpc(body, session) {
  const response = await fetch(url, {
    method: 'POST',
    headers: session
      ? { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }
      : headers,
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${body.method} answered ${response.status}: ${text}`);
  // A request answered with nothing but its result comes back as plain JSON; otherwise as an SSE stream.
  const messages = (response.headers.get('content-type') ?? '').includes('application/json')
    ? [JSON.parse(text)]
    : text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => JSON.parse(line.slice(6)));
  return { response, messages };
}

const assert = (ok, what) => {
  if (!ok) throw new Error(what);
};

const init = await rpc({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'image-smoke', version: '1' },
  },
});
const session = init.response.headers.get('mcp-session-id');
assert(session, 'no session id');
await fetch(url, {
  method: 'POST',
  headers: { ...headers, 'mcp-session-id': session },
  body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
});
const list = await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, session);
const names = list.messages[0].result.tools.map((t) => t.name);
assert(names.includes('skill_text-stats_get_info'), `get_info missing from ${names}`);
const info = await rpc(
  {
    jsonrpc: '2.0',
    id: 3,
    method: 'tools/call',
    params: { name: 'skill_text-stats_get_info', arguments: {} },
  },
  session,
);
assert(
  info.messages[0].method === 'notifications/tools/list_changed',
  'no list_changed before the get_info result',
);
const run = await rpc(
  {
    jsonrpc: '2.0',
    id: 4,
    method: 'tools/call',
    params: { name: 'skill_text-stats_run_stats_py', arguments: { stdin: 'one two two\n' } },
  },
  session,
);
const result = run.messages.at(-1).result;
assert(!result.isError, `script failed: ${JSON.stringify(result)}`);
assert(
  JSON.parse(result.structuredContent.stdout).words === 3,
  `unexpected output ${result.structuredContent.stdout}`,
);
console.log(`image-smoke-client: ${names.length} tools listed, get_info notified, python script ran`);
