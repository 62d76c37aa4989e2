const LF = 0x0a;
const CR = 0x0d;

/**
 * The line ends (LF or CR) of one chunk of an event stream, found in order with native searches, each byte
 * searched once: a 1 MiB event costs two scans, not a JavaScript loop over its bytes. Shared by the two
 * event-stream readers (boundedEventStream.ts, eventStreamReader.ts).
 */
export class LineEnds {
  private lf: number;
  private cr: number;

  constructor(private readonly chunk: Buffer) {
    this.lf = chunk.indexOf(LF);
    this.cr = chunk.indexOf(CR);
  }

  /** The first LF or CR at or after `at`, else -1. */
  from(at: number): number {
    // Each of the two is searched again only once `at` has passed it (no rescans).
    if (this.lf !== -1 && this.lf < at) this.lf = this.chunk.indexOf(LF, at);
    if (this.cr !== -1 && this.cr < at) this.cr = this.chunk.indexOf(CR, at);
    return this.lf === -1 ? this.cr : this.cr === -1 ? this.lf : Math.min(this.lf, this.cr);
  }
}
