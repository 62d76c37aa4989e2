// The v2 SDK client (@modelcontextprotocol/client) in `auto` mode: it lands on 2026-07-28, `catalog`.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const url = new URL(process.argv[2]);
const client = new Client(
  { name: 'sdk-v2-host', version: '2.4.0' },
  { versionNegotiation: { mode: 'auto' } },
);
await client.connect(new StreamableHTTPClientTransport(url));
await client.callTool({ name: 'skill_text-stats_get_info', arguments: {} });
const run = await client.callTool({
  name: 'run_skill_script',
  arguments: { skill: 'text-stats', path: 'scripts/stats.py', stdin: 'one two three\n' },
});
const read = await client.callTool({
  name: 'read_skill_file',
  arguments: { skill: 'text-stats', path: 'references/usage.md' },
});
console.log(JSON.stringify({ run: JSON.stringify(run), read: JSON.stringify(read) }));
await client.close();
