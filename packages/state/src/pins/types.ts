/**
 * Values replicas agree on once (the first to claim a key sets it for all): how replicas without a lock file
 * serve the same commit of a skill source.
 */
export interface PinStore {
  /** The value held for `key`, or `value` after storing it when none was. */
  claim(key: string, value: string): Promise<string>;
  /** The value held for `key`, if any. */
  get(key: string): Promise<string | undefined>;
}
