import { readdirSync, readFileSync } from 'node:fs';

/**
 * Sends `signal` to the process group `pgid`; with `except`, to every member but that one, found by
 * scanning /proc (used only on timeout or cancel, so the scan's cost does not matter).
 */
export function signalProcessGroup(pgid: number, signal: NodeJS.Signals, except?: number): void {
  if (except === undefined) {
    send(-pgid, signal);
    return;
  }
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return;
  }
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === except) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields after the command name: state, ppid, pgrp.
      const group = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      if (group === pgid) send(pid, signal);
    } catch {
      // Gone while scanning.
    }
  }
}

function send(target: number, signal: NodeJS.Signals): void {
  try {
    process.kill(target, signal);
  } catch {
    // ESRCH: already gone.
  }
}
