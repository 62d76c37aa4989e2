import { GatewayError } from '../errors/gatewayError.js';

/**
 * A part built after a callback that needs it was handed out (a session store's "session ended" before the
 * live sessions exist): named, bound once, and read only through it, so the order it works around is written
 * where the value is made instead of hidden in a `let`.
 */
export interface LateBinding<T> {
  /** Binds the value and returns it; binding twice is a composition bug. */
  bind(value: T): T;
  /** The value, or undefined before bind: a callback that fires that early finds nothing to tell. */
  readonly current: T | undefined;
  /** The value; before bind it throws (a read that early is a composition bug). */
  get(): T;
}

/** A late binding named for its error messages. */
export function lateBinding<T>(name: string): LateBinding<T> {
  let value: T | undefined;
  let bound = false;
  return {
    bind(next) {
      if (bound) throw new GatewayError('INTERNAL', `${name} is bound twice`);
      bound = true;
      value = next;
      return next;
    },
    get current() {
      return value;
    },
    get() {
      if (!bound) throw new GatewayError('INTERNAL', `${name} is read before it is bound`);
      return value as T;
    },
  };
}
