import picomatch from 'picomatch';

/**
 * A matcher for a name glob, in the one dialect every glob key of the config uses (docs/configuration.md,
 * "Globs"): picomatch, with `dot` so a name beginning with `.` is matched like any other.
 */
export function globMatcher(glob: string): (name: string) => boolean {
  const isMatch = picomatch(glob, { dot: true });
  // One argument only: picomatch's second returns a match object instead of a boolean.
  return (name) => isMatch(name);
}
