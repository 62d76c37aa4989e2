// The v1 SDK client (@modelcontextprotocol/sdk) as a host that re-lists on list_changed.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const url = new URL(process.argv[2]);
const client = new Client({ name: 'sdk-v1-host', version: '1.0.0' });
let listed = [];
client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
  listed = (await client.listTools()).tools.map((t) => t.name);
});
await client.connect(new StreamableHTTPClientTransport(url));
listed = (await client.listTools()).tools.map((t) => t.name);
await client.callTool({ name: 'skill_text-stats_get_info', arguments: {} });
const runName = listed.find((n) => n.startsWith('skill_text-stats_run_') && !n.includes('_run_async_'));
const readName = listed.find((n) => n.startsWith('skill_text-stats_read_usage'));
if (runName === undefined || readName === undefined)
  throw new Error(`not unlocked in time: ${listed.join(', ')}`);
const run = await client.callTool({ name: runName, arguments: { stdin: 'one two three\n' } });
const read = await client.callTool({ name: readName, arguments: {} });
console.log(JSON.stringify({ run: JSON.stringify(run), read: JSON.stringify(read) }));
await client.close();
