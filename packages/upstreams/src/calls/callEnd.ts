/**
 * How a direct call is ended (its timeout, or the caller's cancel): a flag and one listener. A call's
 * AbortController, and an EventTarget listener added and removed on it, were a few µs of every proxied call
 * (docs/benchmarks.md, "Upstream calls: where the CPU goes"); nothing else needs to observe the end.
 */
export class CallEnd {
  private listener: (() => void) | undefined;
  private ended = false;

  /** Whether the call was ended. */
  get aborted(): boolean {
    return this.ended;
  }

  /** Ends the call: the listener, if one is set, runs once. Later calls change nothing. */
  abort(): void {
    if (this.ended) return;
    this.ended = true;
    const listener = this.listener;
    this.listener = undefined;
    listener?.();
  }

  /** Sets the one listener (replacing any), or removes it with undefined. */
  listen(listener: (() => void) | undefined): void {
    this.listener = listener;
  }
}
