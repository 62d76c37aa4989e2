/** Options of createStderrLines. */
export interface StderrLinesOptions {
  /** Bytes logged per minute; past them lines are dropped and one note says how many. */
  readonly bytesPerMinute: number;
  readonly log: (line: string) => void;
  /** Longest line kept; the rest of a longer line is cut. */
  readonly maxLineBytes?: number;
}

/**
 * Turns a stderr stream's chunks into bounded log lines: a partial line is held up to maxLineBytes, and no
 * more than bytesPerMinute are logged (a chatty or hostile server cannot flood the gateway's log).
 */
export function createStderrLines(options: StderrLinesOptions): (chunk: Buffer) => void {
  const maxLine = options.maxLineBytes ?? 4096;
  let pending = '';
  let windowStart = Date.now();
  let spent = 0;
  let dropped = 0;
  const emit = (line: string): void => {
    const now = Date.now();
    if (now - windowStart >= 60_000) {
      if (dropped > 0)
        options.log(`(${dropped} stderr lines dropped: over ${options.bytesPerMinute} bytes a minute)`);
      windowStart = now;
      spent = 0;
      dropped = 0;
    }
    if (line.trim() === '') return;
    if (spent + line.length > options.bytesPerMinute) {
      dropped += 1;
      return;
    }
    spent += line.length;
    options.log(line);
  };
  return (chunk) => {
    pending += chunk.toString('utf8');
    let newline = pending.indexOf('\n');
    while (newline >= 0) {
      emit(pending.slice(0, Math.min(newline, maxLine)));
      pending = pending.slice(newline + 1);
      newline = pending.indexOf('\n');
    }
    if (pending.length > maxLine) {
      emit(pending.slice(0, maxLine));
      // The rest of an overlong line is dropped up to its end.
      pending = '';
    }
  };
}
