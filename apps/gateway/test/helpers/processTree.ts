import { readdirSync, readFileSync } from 'node:fs';

/** Pids of `parent`'s children whose argv holds `word` (a spare's `skillgate-run`, the `skillgate-watchdog`). */
export function childrenNamed(parent: number, word: string): number[] {
  return readdirSync('/proc').flatMap((entry) => {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== parent) return [];
      return readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(word) ? [Number(entry)] : [];
    } catch {
      return [];
    }
  });
}
