#!/usr/bin/env node
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  assertSafeBinding,
  ConfigError,
  loadConfig,
  resolveAuthTokens,
  type SkillgateConfig,
} from '@skillgate/config';
import {
  DISCLOSURES,
  type Disclosure,
  renderSummary,
  type SummaryFormat,
  type UpstreamSnapshot,
} from '@skillgate/skills';
import { createAccessPolicy, type Principal } from './auth/accessPolicy.js';
import { createPrincipalDirectory } from './auth/principalDirectory.js';
import { catalogSettings, upstreamDefinitions } from './compose/gatewaySettings.js';
import { createGateway } from './createGateway.js';
import { createDisclosurePolicy, type DisclosurePolicy } from './disclosure/disclosurePolicy.js';
import { buildCatalog } from './reload/catalogSource.js';
import { skillsViewOf } from './skillsExtension/skillsView.js';
import { createGatewayUpstreamPool } from './upstreams/createGatewayUpstreamPool.js';

const USAGE = `Usage: skillgate <command> [options]

Commands:
  serve     [ROOT...] [--config FILE] [--host H] [--port N]  run the gateway
  validate  [ROOT...] [--config FILE] [--strict]       report every skill problem; exit 1 on errors
  metadata  [ROOT...] [--config FILE] [--format markdown|json|xml]  print the L1 skill summary
  tools     [ROOT...] [--config FILE] [--token NAME] [--unlock SKILL...] [--disclosure MODE] [--json]
                                                      print the tool list a session would see, of every skill or
                                                      of what token NAME (or anonymous) may use (connects to the
                                                      upstreams, so --unlock shows their call tools)
  skills    [ROOT...] [--config FILE] [--token NAME] [--json]
                                                      print the Skills extension entries (digests) hosts verify,
                                                      all of them or what token NAME (or anonymous) may see
  upstreams [--config FILE] [--json]                  connect to each upstream MCP server; print its state and
                                                      tools (exit 1 when one is down)

ROOT... are skill folders (each holding one folder per skill); given, they replace skills.roots.
`;

const OPTIONS = {
  config: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  strict: { type: 'boolean' },
  format: { type: 'string' },
  unlock: { type: 'string', multiple: true },
  disclosure: { type: 'string' },
  token: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Flags = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

class UsageError extends Error {}

/** A second signal within this long of the first is the same interrupt delivered twice. */
const REPEATED_SIGNAL_MS = 1000;

/** Commands that take skill folders (ROOT...) as positional arguments. */
const ROOT_COMMANDS = new Set(['serve', 'validate', 'metadata', 'tools', 'skills']);

async function configFrom(flags: Flags, roots: readonly string[] = []): Promise<SkillgateConfig> {
  const port = flags.port === undefined ? undefined : Number(flags.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    throw new UsageError(`--port must be an integer from 0 to 65535, got "${flags.port}"`);
  }
  const { config } = await loadConfig({ file: flags.config, overrides: { host: flags.host, port } });
  if (roots.length === 0) return config;
  // ROOT arguments replace the config's roots for this run: `tools ./my-skills` shows exactly those skills.
  const resolved = roots.map((root) => resolve(root));
  for (const [index, root] of resolved.entries()) {
    const isDir = await stat(root).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!isDir) throw new UsageError(`not a folder: ${roots[index]}`);
  }
  return { ...config, skills: { ...config.skills, roots: resolved } };
}

async function serve(flags: Flags, roots: readonly string[]): Promise<number> {
  const config = await configFrom(flags, roots);
  assertSafeBinding(config, resolveAuthTokens(config, process.env));
  const gateway = await createGateway(config);
  const path = config.server.path;
  // Fastify logs one line per address it listens on; naming the MCP endpoint makes it the only such line.
  const address = await gateway.app
    .listen({
      host: config.server.host,
      port: config.server.port,
      listenTextResolver: (address) => `skillgate listening on ${address}${path}`,
    })
    .catch(async (error: unknown) => {
      // Nothing was served: stop the runner, store and watcher so the process can exit with the one line.
      await gateway.close().catch(() => {});
      throw error;
    });
  const skills = gateway.catalogs.current.skills.size;
  gateway.log.info(
    { address, path, skills, disclosure: config.skills.disclosure },
    `serving ${skills} skills (${config.skills.disclosure} disclosure)`,
  );
  let stoppingSince: number | undefined;
  const stop = (signal: string) => {
    if (stoppingSince !== undefined) {
      // Ctrl-C under `pnpm start` arrives twice within milliseconds (the terminal signals the process
      // group and pnpm passes its own on): that is one interrupt. A later one a person sends forces the exit.
      if (Date.now() - stoppingSince < REPEATED_SIGNAL_MS) return;
      process.exit(1);
    }
    stoppingSince = Date.now();
    gateway.log.info({ signal }, 'shutting down');
    gateway.close().then(
      () => process.exit(0),
      (error: unknown) => {
        gateway.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  return new Promise<number>(() => {});
}

async function validate(flags: Flags, roots: readonly string[]): Promise<number> {
  let config = await configFrom(flags, roots);
  // --strict overrides the config's validation for this run only.
  if (flags.strict === true) config = { ...config, skills: { ...config.skills, validation: 'strict' } };
  const catalog = await buildCatalog(catalogSettings(config));
  for (const p of catalog.problems) {
    const where = p.field === undefined ? p.file : `${p.file} [${p.field}]`;
    process.stdout.write(`${p.severity.padEnd(7)} ${p.code.padEnd(20)} ${where}: ${p.reason}\n`);
  }
  const errors = catalog.problems.filter((p) => p.severity === 'error').length;
  const warnings = catalog.problems.length - errors;
  process.stdout.write(`${catalog.skills.size} skills loaded, ${errors} errors, ${warnings} warnings\n`);
  return errors > 0 ? 1 : 0;
}

async function metadata(flags: Flags, roots: readonly string[]): Promise<number> {
  const format = (flags.format ?? 'markdown') as SummaryFormat;
  if (!['markdown', 'json', 'xml'].includes(format))
    throw new UsageError(`--format must be markdown, json or xml`);
  const catalog = await buildCatalog(catalogSettings(await configFrom(flags, roots)));
  process.stdout.write(`${renderSummary(catalog.skills.values(), format)}\n`);
  return 0;
}

/**
 * The upstreams' snapshots after one connection attempt each (as serve would start them), so that `tools`
 * shows their call tools; the pool is closed again before printing.
 */
async function connectedUpstreams(config: SkillgateConfig): Promise<readonly UpstreamSnapshot[]> {
  if (config.upstreams.length === 0) return [];
  const quiet = { info: () => {}, warn: () => {} };
  const pool = createGatewayUpstreamPool({
    upstreams: upstreamDefinitions(config),
    env: process.env,
    log: quiet,
  });
  try {
    await pool.start();
    return pool.snapshots();
  } finally {
    await pool.close();
  }
}

async function tools(flags: Flags, roots: readonly string[]): Promise<number> {
  const config = await configFrom(flags, roots);
  const principal = principalOf(config, flags.token);
  const disclosure = (flags.disclosure ?? config.skills.disclosure) as Disclosure;
  if (!DISCLOSURES.includes(disclosure)) {
    throw new UsageError(`--disclosure must be one of ${DISCLOSURES.join(', ')}`);
  }
  const snapshots = await connectedUpstreams(config);
  const catalog = await buildCatalog(catalogSettings(config), snapshots);
  // An upstream that could not be reached has no tools to show: say so rather than list nothing silently.
  for (const s of snapshots.filter((u) => u.state !== 'ready')) {
    const why = s.lastError === undefined ? '' : ` (${s.lastError})`;
    process.stderr.write(`note: upstream "${s.id}" is ${s.state}${why}: its call tools are not listed\n`);
  }
  const unlock = flags.unlock ?? [];
  const unknown = unlock.filter((name) => !catalog.skills.has(name));
  if (unknown.length > 0) throw new UsageError(`unknown skill(s): ${unknown.join(', ')}`);
  // The same list the operator page shows for the principal (apps/gateway/src/operator/).
  const list = previewPolicy(config).previewTools(catalog, principal, disclosure, new Set(unlock));
  if (flags.json === true) process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
  else for (const tool of list) process.stdout.write(`${tool.name}\n`);
  return 0;
}

/** The principal `--token NAME` names: a configured token by name, or `anonymous`; everything without. */
function principalOf(config: SkillgateConfig, name: string | undefined): Principal {
  // Views are cached by skill globs (viewKeyOf): this one shares the view of any principal allowed `*`.
  if (name === undefined) return { id: '*', name: '*', skills: ['*'] };
  const directory = createPrincipalDirectory({
    tokens: config.auth.tokens,
    anonymousSkills: config.auth.anonymous_skills,
  });
  const principal = directory.byName(name);
  if (principal === undefined) {
    throw new UsageError(`no token named "${name}" in the config (known: ${directory.names.join(', ')})`);
  }
  return principal;
}

/**
 * The gateway's own rule without sessions: the disclosure policy over the access policy's globs (the
 * principal carries them), nothing unlocked unless asked.
 */
function previewPolicy(config: SkillgateConfig): DisclosurePolicy {
  return createDisclosurePolicy({
    access: createAccessPolicy({ tokens: [], allowAnonymous: true, anonymousSkills: [] }),
    store: { unlocked: async () => new Set() },
    maxInstructionsChars: config.skills.max_instructions_chars,
  });
}

/**
 * The Skills extension entries a caller would get, in skills/list order (docs/skills-extension.md): every
 * published skill, or those token NAME's `skills` globs allow.
 */
async function skills(flags: Flags, roots: readonly string[]): Promise<number> {
  const config = await configFrom(flags, roots);
  const principal = principalOf(config, flags.token);
  const catalog = await buildCatalog(catalogSettings(config));
  // The same view skills/list pages (no sessions here, so nothing is unlocked).
  const view = skillsViewOf(previewPolicy(config), catalog, principal);
  // Why a skill is missing from the list goes to stderr, so stdout stays exactly the entries.
  for (const p of catalog.extension.problems) {
    if (view.mayUse(p.skill ?? '')) process.stderr.write(`${p.severity} ${p.code} ${p.skill}: ${p.reason}\n`);
  }
  if (flags.json === true) {
    process.stdout.write(`${JSON.stringify(view.entries, null, 2)}\n`);
    return 0;
  }
  for (const entry of view.entries) {
    process.stdout.write(`${entry.uri}\n`);
    const resources = entry.resources === 'dynamic' ? [] : entry.resources;
    for (const r of resources) process.stdout.write(`  ${r.digest} ${String(r.size).padStart(9)} ${r.uri}\n`);
  }
  return 0;
}

/** Connects to every configured upstream once (as serve would), prints state and tools, disconnects. */
async function upstreams(flags: Flags): Promise<number> {
  const config = await configFrom(flags);
  const quiet = { info: () => {}, warn: () => {} };
  const pool = createGatewayUpstreamPool({
    upstreams: upstreamDefinitions(config),
    env: process.env,
    log: quiet,
  });
  try {
    await pool.start();
    const snapshots = pool.snapshots();
    if (flags.json === true) {
      process.stdout.write(`${JSON.stringify(snapshots, null, 2)}\n`);
    } else if (snapshots.length === 0) {
      process.stdout.write('no upstreams configured\n');
    }
    for (const s of flags.json === true ? [] : snapshots) {
      const server =
        s.serverInfo === undefined ? '' : ` — ${s.serverInfo.name} ${s.serverInfo.version ?? ''}`.trimEnd();
      process.stdout.write(`${s.id}: ${s.state}${server} (${s.tools.length} tools, skill: ${s.skill})\n`);
      if (s.lastError !== undefined) process.stdout.write(`  error: ${s.lastError}\n`);
      for (const tool of s.tools) {
        const line = (tool.description ?? '').split('\n')[0]?.slice(0, 100) ?? '';
        process.stdout.write(`  ${tool.name}${line === '' ? '' : `  ${line}`}\n`);
      }
    }
    return snapshots.every((s) => s.state === 'ready') ? 0 : 1;
  } finally {
    await pool.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const { values: flags, positionals } = parseArgs({
    args: argv,
    options: OPTIONS,
    allowPositionals: true,
    strict: true,
  });
  const [command, ...rest] = positionals;
  if (flags.help === true || command === undefined) {
    process.stdout.write(USAGE);
    return command === undefined && flags.help !== true ? 2 : 0;
  }
  if (!ROOT_COMMANDS.has(command) && rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
  switch (command) {
    case 'serve':
      return serve(flags, rest);
    case 'validate':
      return validate(flags, rest);
    case 'metadata':
      return metadata(flags, rest);
    case 'tools':
      return tools(flags, rest);
    case 'skills':
      return skills(flags, rest);
    case 'upstreams':
      return upstreams(flags);
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}

/** A failed listen() of the server socket (node:net puts the address it tried on the error). */
interface ListenError {
  readonly code: string;
  readonly address: string;
  readonly port: number;
}

const isListenError = (error: unknown): error is ListenError =>
  error instanceof Error &&
  (error as { syscall?: unknown }).syscall === 'listen' &&
  typeof (error as { code?: unknown }).code === 'string';

const LISTEN_REASONS: Readonly<Record<string, string>> = {
  EADDRINUSE:
    'the port is in use (another skillgate, or another program); pick another with --port or server.port',
  EACCES: 'permission denied (ports below 1024 need privileges); pick another with --port or server.port',
  EADDRNOTAVAIL: 'this host has no such address; check --host or server.host',
};

const listenReason = (error: ListenError): string =>
  `${LISTEN_REASONS[error.code] ?? 'failed'} (${error.code})`;

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof ConfigError) {
      // The issues carry the whole story; the message would repeat them.
      const [only, ...more] = error.issues;
      if (only === undefined)
        process.stderr.write(`skillgate: config error (${error.code}): ${error.message}\n`);
      else if (more.length === 0)
        process.stderr.write(`skillgate: config error (${error.code}): ${only.path}: ${only.message}\n`);
      else {
        process.stderr.write(`skillgate: config error (${error.code}):\n`);
        for (const issue of error.issues) process.stderr.write(`  ${issue.path}: ${issue.message}\n`);
      }
    } else if (isListenError(error)) {
      process.stderr.write(
        `skillgate: cannot listen on ${error.address}:${error.port}: ${listenReason(error)}\n`,
      );
    } else if (error instanceof UsageError || (error instanceof TypeError && 'code' in error)) {
      process.stderr.write(`skillgate: ${error.message}\n\n${USAGE}`);
    } else {
      process.stderr.write(
        `skillgate: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
    }
    process.exitCode = error instanceof UsageError ? 2 : 1;
  },
);
