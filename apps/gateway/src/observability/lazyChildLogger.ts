import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';
import { type WrittenLevel, writesAt } from './writesAt.js';

/**
 * A request's child logger, made into a pino child only when it first writes a line. Fastify makes a child
 * per request (binding its reqId) and the MCP guard one more (binding the principal); pino serializes a
 * child's bindings when the child is made, about 2 µs each, for requests that mostly write nothing. A child of
 * this logger is lazy too: its bindings join the chain's when a line is written (later ones win). Lines come
 * out exactly as a pino child's.
 */
export class LazyChildLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  /**
   * @param earlier the lazy logger this one is a child of: its bindings come first. Kept as a link, not
   *   copied: spreading two binding objects per child cost more than the child it saves.
   */
  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions = {},
    private readonly earlier?: LazyChildLogger,
  ) {}

  /** Fastify's childLoggerFactory (buildApp.ts). */
  static factory(
    this: void,
    logger: FastifyBaseLogger,
    bindings: Bindings,
    options: ChildLoggerOptions,
  ): FastifyBaseLogger {
    return new LazyChildLogger(logger, bindings, options);
  }

  get level(): string {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger().level = level;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    // Options (serializers, redaction) apply from the child on, as pino applies them: made at once.
    if (options !== undefined && Object.keys(options).length > 0)
      return this.logger().child(bindings, options);
    return new LazyChildLogger(this.parent, bindings, this.options, this);
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}

  private write(level: WrittenLevel, args: unknown[]): void {
    if (!writesAt(this, level)) return;
    (this.logger()[level] as (...line: unknown[]) => void)(...args);
  }

  private logger(): FastifyBaseLogger {
    this.made ??= this.parent.child(this.allBindings(), this.options);
    return this.made;
  }

  /** Every binding of the chain, the earliest first (a later one wins, as in a pino child of a child). */
  private allBindings(): Bindings {
    return this.earlier === undefined ? this.bindings : { ...this.earlier.allBindings(), ...this.bindings };
  }
}
