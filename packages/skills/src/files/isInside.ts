import { sep } from 'node:path';

/** True when the absolute path `child` is `parent` itself or lies below it. */
export function isInside(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);
}
