#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { OPTIONS } from './cli/configFrom.js';
import { connectionsCommand } from './cli/connectionsCommand.js';
import { metadataCommand } from './cli/metadataCommand.js';
import { reportCliError } from './cli/reportCliError.js';
import { searchCommand } from './cli/searchCommand.js';
import { serveCommand } from './cli/serveCommand.js';
import { skillsCommand } from './cli/skillsCommand.js';
import { sourcesCommand } from './cli/sourcesCommand.js';
import { toolsCommand } from './cli/toolsCommand.js';
import { upstreamsCommand } from './cli/upstreamsCommand.js';
import { USAGE, UsageError } from './cli/usage.js';
import { validateCommand } from './cli/validateCommand.js';

/** Commands that take skill folders (ROOT...) as positional arguments. */
const ROOT_COMMANDS = new Set(['serve', 'validate', 'metadata', 'tools', 'skills', 'search']);

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
  if (command === 'sources') return sourcesCommand(flags, rest);
  if (!ROOT_COMMANDS.has(command) && rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
  switch (command) {
    case 'serve':
      return serveCommand(flags, rest);
    case 'validate':
      return validateCommand(flags, rest);
    case 'metadata':
      return metadataCommand(flags, rest);
    case 'tools':
      return toolsCommand(flags, rest);
    case 'skills':
      return skillsCommand(flags, rest);
    case 'search':
      return searchCommand(flags, rest);
    case 'upstreams':
      return upstreamsCommand(flags);
    case 'connections':
      return connectionsCommand(flags);
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.exitCode = reportCliError(error);
  },
);
