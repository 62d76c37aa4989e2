// Vercel AI SDK (@ai-sdk/mcp): fetches the tools once and executes them as the model would.
import { createMCPClient } from '@ai-sdk/mcp';

const url = process.argv[2];
const client = await createMCPClient({ transport: { type: 'http', url } });
const tools = await client.tools();
const call = (name, args) => {
  if (tools[name] === undefined) throw new Error(`no tool ${name}: ${Object.keys(tools).join(', ')}`);
  return tools[name].execute(args, { toolCallId: name, messages: [] });
};
await call('skill_text-stats_get_info', {});
const run = await call('run_skill_script', {
  skill: 'text-stats',
  path: 'scripts/stats.py',
  stdin: 'one two three\n',
});
const read = await call('read_skill_file', { skill: 'text-stats', path: 'references/usage.md' });
console.log(JSON.stringify({ run: JSON.stringify(run), read: JSON.stringify(read) }));
await client.close();
