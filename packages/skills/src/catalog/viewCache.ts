/** Memoizes `build` per allowed-skills Set (held weakly), with one slot for "every skill". */
export function viewCache<T>(build: (allowed: ReadonlySet<string> | undefined) => T) {
  const bySet = new WeakMap<ReadonlySet<string>, T>();
  let everySkill: { value: T } | undefined;
  return (allowed: ReadonlySet<string> | undefined): T => {
    if (allowed === undefined) {
      everySkill ??= { value: build(undefined) };
      return everySkill.value;
    }
    if (bySet.has(allowed)) return bySet.get(allowed) as T;
    const value = build(allowed);
    bySet.set(allowed, value);
    return value;
  };
}
