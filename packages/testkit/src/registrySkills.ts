import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

// The public ETOM catalogue of MCP servers and its labelled dev queries (MIT; where they come from, byte for
// byte, is in corpora/mcp-servers/SOURCE.md), committed with the repository.
const REPO = join(import.meta.dirname, '../../..');
const CORPUS = join(REPO, 'corpora/mcp-servers');

/** One MCP server of the registry, as the corpus describes it. */
export interface RegistryServer {
  readonly server_name: string;
  readonly server_description: string;
  readonly server_summary: string;
  readonly tools: ReadonlyArray<{ readonly tool_name: string; readonly tool_description: string }>;
}

/** One labelled query of the dev set: any one of `servers` (server names) answers it. */
export interface RegistryQuery {
  readonly id: string;
  readonly level: number;
  readonly query: string;
  readonly servers: readonly string[];
}

/** The path of a corpus file; fails with what is missing and where it was looked for. */
function corpusFile(name: string): string {
  const path = join(CORPUS, name);
  if (!existsSync(path)) {
    throw new Error(`the MCP server corpus is missing: ${path} (it is committed under corpora/mcp-servers/)`);
  }
  return path;
}

/** The 491 servers of the corpus. */
export async function readRegistryServers(): Promise<readonly RegistryServer[]> {
  const parsed = JSON.parse(await readFile(corpusFile('mcp_registry.json'), 'utf8')) as {
    servers: RegistryServer[];
  };
  return parsed.servers;
}

/** The labelled dev queries of the corpus. */
export async function readRegistryQueries(): Promise<readonly RegistryQuery[]> {
  const text = await readFile(corpusFile('dev-queries.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as RegistryQuery);
}

/** A server name reduced to a skill name: a-z0-9 and single inner hyphens, at most `max` chars. */
function registrySkillBase(serverName: string, max = 56): string {
  const reduced = serverName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const cut = reduced.slice(0, max).replace(/-+$/g, '');
  return cut === '' ? 'server' : cut;
}

/** Options of writeRegistrySkills. */
export interface RegistrySkillsOptions {
  /** The skill root to write into (one folder per skill). */
  readonly root: string;
  /** How many skills to write: the servers in order, repeated with a `-c<n>` suffix past the corpus. */
  readonly count?: number;
  /** Only these servers (by index), e.g. to give tokens different parts of the catalog. */
  readonly servers?: readonly RegistryServer[];
}

/** What writeRegistrySkills wrote. */
export interface RegistrySkills {
  /** Skill names in write order. */
  readonly names: readonly string[];
  /** server_name -> skill name of its first copy (how a dev query's label maps to a skill). */
  readonly skillOf: ReadonlyMap<string, string>;
}

/**
 * Writes one skill per server of the corpus (its SOURCE.md's recipe): the name from `server_name`, the
 * description from `server_description` (else `server_summary`), and a body listing the server's tools.
 */
export async function writeRegistrySkills(options: RegistrySkillsOptions): Promise<RegistrySkills> {
  const servers = options.servers ?? (await readRegistryServers());
  const count = options.count ?? servers.length;
  const used = new Set<string>();
  const names: string[] = [];
  const skillOf = new Map<string, string>();
  for (let i = 0; i < count; i++) {
    const server = servers[i % servers.length];
    if (server === undefined) break;
    const copy = Math.floor(i / servers.length);
    const base = registrySkillBase(server.server_name) + (copy === 0 ? '' : `-c${copy}`);
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base}-${n}`;
    used.add(name);
    names.push(name);
    if (!skillOf.has(server.server_name)) skillOf.set(server.server_name, name);
    await mkdir(join(options.root, name), { recursive: true });
    await writeFile(join(options.root, name, 'SKILL.md'), registrySkillMd(name, server));
  }
  return { names, skillOf };
}

/** The SKILL.md of one server's skill. */
function registrySkillMd(name: string, server: RegistryServer): string {
  const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
  const raw = oneLine(server.server_description) || oneLine(server.server_summary) || server.server_name;
  const description = raw.length > 1000 ? `${raw.slice(0, 999)}…` : raw;
  const tools = server.tools.map((t) => `- \`${t.tool_name}\`: ${oneLine(t.tool_description)}`);
  const summary = oneLine(server.server_summary);
  return [
    '---',
    `name: ${name}`,
    `description: ${JSON.stringify(description)}`,
    '---',
    `# ${server.server_name}`,
    '',
    summary === '' || summary === description ? '' : `${summary}\n`,
    '## Tools',
    '',
    ...(tools.length === 0 ? ['(none listed)'] : tools),
    '',
  ].join('\n');
}
