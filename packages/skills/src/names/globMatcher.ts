/** A matcher for a name glob: `*` any run of characters, `?` one character, everything else literal. */
export function globMatcher(glob: string): (name: string) => boolean {
  if (glob === '*') return () => true;
  const source = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  const regex = new RegExp(`^${source}$`);
  return (name) => regex.test(name);
}
