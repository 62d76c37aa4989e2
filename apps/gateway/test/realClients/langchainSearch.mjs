// LangChain JS (@langchain/mcp-adapters) against a catalog past tools.max_listed: loads the tools once, as an
// agent would, then searches, loads the skill it found and uses it.
import { MultiServerMCPClient } from '@langchain/mcp-adapters';

const [url, query, skill, script, reference] = process.argv.slice(2);
const client = new MultiServerMCPClient({ mcpServers: { skillgate: { transport: 'http', url } } });
const tools = await client.getTools();
const tool = (suffix) => {
  const found = tools.find((t) => t.name.endsWith(suffix));
  if (found === undefined)
    throw new Error(`no tool ending in ${suffix}: ${tools.map((t) => t.name).join(', ')}`);
  return found;
};
const text = (result) => (typeof result === 'string' ? result : JSON.stringify(result));
const search = await tool('search_skills').invoke({ query });
const load = await tool('load_skill').invoke({ name: skill });
const run = await tool('run_skill_script').invoke({ skill, path: script, stdin: 'one two three\n' });
const read = await tool('read_skill_file').invoke({ skill, path: reference });
console.log(
  JSON.stringify({
    listed: tools.map((t) => t.name),
    search: text(search),
    load: text(load),
    run: text(run),
    read: text(read),
  }),
);
await client.close();
