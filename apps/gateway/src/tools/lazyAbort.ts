import type { ToolCallContext } from './toolCall.js';

/**
 * A request's abort signal, made only when a handler first asks for it: most tool calls (get_info, reads)
 * never look at it, and an AbortController with its signal costs about 5 µs on the hot paths of both eras.
 * Aborting before anyone asked makes the signal already aborted when it is asked for.
 */
export class LazyAbort {
  private controller: AbortController | undefined;
  private abortedWith: { readonly reason: unknown } | undefined;

  /** The signal handlers see. */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.abortedWith !== undefined) this.controller.abort(this.abortedWith.reason);
    }
    return this.controller.signal;
  }

  /** Whether abort was called. */
  get aborted(): boolean {
    return this.abortedWith !== undefined;
  }

  /** Aborts the signal, now or as soon as it is made; later calls change nothing. */
  abort(reason?: unknown): void {
    if (this.abortedWith !== undefined) return;
    this.abortedWith = { reason };
    this.controller?.abort(reason);
  }
}

/**
 * A direct path's context of a tool call over a LazyAbort. A class, not an object literal: a literal with a
 * getter costs a runtime call per accessor to create, on every call.
 */
export class LazyCallContext implements ToolCallContext {
  constructor(
    private readonly abort: LazyAbort,
    readonly notify: ToolCallContext['notify'],
  ) {}

  get signal(): AbortSignal {
    return this.abort.signal;
  }
}
