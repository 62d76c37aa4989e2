import { assertSafeBinding, resolveAuthTokens } from '@skillgate/config';
import { createGateway } from '../createGateway.js';
import { type Flags, runConfigFrom } from './configFrom.js';

/** A second signal within this long of the first is the same interrupt delivered twice. */
const REPEATED_SIGNAL_MS = 1000;

/** `skillgate serve`: runs the gateway until SIGTERM/SIGINT, then shuts it down gracefully. */
export async function serveCommand(flags: Flags, roots: readonly string[]): Promise<number> {
  const { config, warnings } = await runConfigFrom(flags, roots);
  assertSafeBinding(config, resolveAuthTokens(config, process.env));
  const gateway = await createGateway(config);
  const { server, http, disclosurePicker } = gateway.settings;
  const path = http.path;
  // Fastify logs one line per address it listens on; naming the MCP endpoint makes it the only such line.
  const address = await gateway.app
    .listen({
      host: server.host,
      port: server.port,
      listenTextResolver: (address) => `skillgate listening on ${address}${path}`,
    })
    .then(async (address) => {
      await gateway.listenMetrics();
      return address;
    })
    .catch(async (error: unknown) => {
      // Nothing was served: stop the runner, store and watcher so the process can exit with the one line.
      await gateway.close().catch(() => {});
      throw error;
    });
  for (const warning of warnings) gateway.log.warn(warning);
  const skills = gateway.catalogs.current.skills.size;
  gateway.log.info(
    { address, path, skills, disclosure: disclosurePicker.fallback },
    `serving ${skills} skills (${disclosurePicker.fallback} disclosure)`,
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
