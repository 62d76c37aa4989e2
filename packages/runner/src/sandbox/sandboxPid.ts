import type { Readable } from 'node:stream';

// bwrap's --info-fd output: a JSON object whose "child-pid" is its inner process, as the host sees it.
const CHILD_PID = /"child-pid"\s*:\s*(\d+)/;
// The object is a few hundred bytes; anything longer is not bwrap's.
const MAX_INFO_BYTES = 4096;

/** Reads bwrap's --info-fd stream until it names the sandbox's pid; undefined if it ends without one. */
export function sandboxPid(info: Readable): Promise<number | undefined> {
  return new Promise((resolve) => {
    let text = '';
    const done = (pid: number | undefined): void => {
      info.off('data', onData);
      info.off('end', onEnd);
      info.off('error', onEnd);
      info.off('close', onEnd);
      resolve(pid);
    };
    const onData = (chunk: Buffer | string): void => {
      text += chunk.toString();
      const match = CHILD_PID.exec(text);
      if (match?.[1] !== undefined) done(Number(match[1]));
      else if (text.length > MAX_INFO_BYTES) done(undefined);
    };
    const onEnd = (): void => done(undefined);
    info.on('data', onData);
    info.once('end', onEnd);
    info.once('error', onEnd);
    info.once('close', onEnd);
  });
}
