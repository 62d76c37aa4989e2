/** Pino's levels, least severe first. */
const LEVELS: readonly string[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];

/** A level pino writes lines at. */
export type WrittenLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/**
 * Whether a logger writes lines of `level`: hot paths build a line's object only when it is written.
 * (Fastify's logger type does not expose pino's isLevelEnabled; its `level` is one of pino's names, or silent.)
 */
export function writesAt(log: { readonly level: string }, level: WrittenLevel): boolean {
  const at = LEVELS.indexOf(log.level);
  return at !== -1 && at <= LEVELS.indexOf(level);
}
