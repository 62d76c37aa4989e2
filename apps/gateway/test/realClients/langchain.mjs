// LangChain JS (@langchain/mcp-adapters): loads the tools once, as an agent would, then calls them.
import { MultiServerMCPClient } from '@langchain/mcp-adapters';

const url = process.argv[2];
const client = new MultiServerMCPClient({ mcpServers: { skillgate: { transport: 'http', url } } });
const tools = await client.getTools();
const tool = (suffix) => {
  const found = tools.find((t) => t.name.endsWith(suffix));
  if (found === undefined)
    throw new Error(`no tool ending in ${suffix}: ${tools.map((t) => t.name).join(', ')}`);
  return found;
};
const text = (result) => (typeof result === 'string' ? result : JSON.stringify(result));
await tool('skill_text-stats_get_info').invoke({});
const run = await tool('run_skill_script').invoke({
  skill: 'text-stats',
  path: 'scripts/stats.py',
  stdin: 'one two three\n',
});
const read = await tool('read_skill_file').invoke({ skill: 'text-stats', path: 'references/usage.md' });
console.log(JSON.stringify({ run: text(run), read: text(read) }));
await client.close();
