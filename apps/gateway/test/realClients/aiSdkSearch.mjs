// Vercel AI SDK (@ai-sdk/mcp) against a catalog past tools.max_listed: fetches the tools once, then searches,
// loads the skill it found and uses it, executing the tools as the model would.
import { createMCPClient } from '@ai-sdk/mcp';

const [url, query, skill, script, reference] = process.argv.slice(2);
const client = await createMCPClient({ transport: { type: 'http', url } });
const tools = await client.tools();
const call = (name, args) => {
  if (tools[name] === undefined) throw new Error(`no tool ${name}: ${Object.keys(tools).join(', ')}`);
  return tools[name].execute(args, { toolCallId: name, messages: [] });
};
const search = await call('search_skills', { query });
const load = await call('load_skill', { name: skill });
const run = await call('run_skill_script', { skill, path: script, stdin: 'one two three\n' });
const read = await call('read_skill_file', { skill, path: reference });
console.log(
  JSON.stringify({
    listed: Object.keys(tools),
    search: JSON.stringify(search),
    load: JSON.stringify(load),
    run: JSON.stringify(run),
    read: JSON.stringify(read),
  }),
);
await client.close();
