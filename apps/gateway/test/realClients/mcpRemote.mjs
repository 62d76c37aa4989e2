// mcp-remote (the stdio bridge desktop hosts use) in front of a host that re-lists on list_changed.
import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const url = process.argv[2];
const proxy = createRequire(import.meta.url).resolve('mcp-remote/dist/proxy.js');
const client = new Client({ name: 'claude-code', version: '2.1.197' });
let listed = [];
client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
  listed = (await client.listTools()).tools.map((t) => t.name);
});
await client.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [proxy, url, '--allow-http', '--transport', 'http-only'],
    stderr: 'ignore',
  }),
);
listed = (await client.listTools()).tools.map((t) => t.name);
await client.callTool({ name: 'skill_text-stats_get_info', arguments: {} });
// What the host holds when the get_info result is in: the unlocked tools, without a list of its own.
const runName = listed.find((n) => n.startsWith('skill_text-stats_run_') && !n.includes('_run_async_'));
const readName = listed.find((n) => n.startsWith('skill_text-stats_read_usage'));
if (runName === undefined || readName === undefined)
  throw new Error(`not unlocked in time: ${listed.join(', ')}`);
const run = await client.callTool({ name: runName, arguments: { stdin: 'one two three\n' } });
const read = await client.callTool({ name: readName, arguments: {} });
console.log(JSON.stringify({ run: JSON.stringify(run), read: JSON.stringify(read) }));
await client.close();
