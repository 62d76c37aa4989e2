import type { ServerNotification } from '@modelcontextprotocol/server';
import type { RunProgress } from '@skillgate/runner';
import { GatewayError } from '../errors/gatewayError.js';
import type { UpstreamProgress } from './upstreamCaller.js';

/** Where a call's notifications go: its request's stream (ToolCallContext). */
interface RequestNotifier {
  notify(notification: ServerNotification): Promise<void>;
}

/**
 * The progress notifications of one call whose caller sent a progressToken: a running script's (about once a
 * second) and an upstream's (passed on as it came, under the caller's token, never the upstream's).
 */
export class CallProgress {
  // Forwarded notifications still being written: the result waits for them, so none arrives after it (a
  // client drops progress of a request it already has the answer to).
  private readonly sent: Array<Promise<void>> = [];

  constructor(
    private readonly token: string | number,
    private readonly ctx: RequestNotifier,
  ) {}

  /** About once a second while a script runs: elapsed seconds and its last output line. */
  readonly reportRun = (p: RunProgress): void => {
    this.ctx
      .notify({
        method: 'notifications/progress',
        params: {
          progressToken: this.token,
          progress: p.elapsedMs / 1000,
          message: p.lastLine === '' ? `running for ${Math.round(p.elapsedMs / 1000)} s` : p.lastLine,
        },
      })
      .catch(() => {});
  };

  /** An upstream's own progress, as it came. */
  readonly forward = (p: UpstreamProgress): void => {
    this.sent.push(
      this.ctx
        .notify({
          method: 'notifications/progress',
          params: {
            progressToken: this.token,
            progress: p.progress,
            ...(p.total === undefined ? {} : { total: p.total }),
            ...(p.message === undefined ? {} : { message: p.message }),
          },
        })
        .catch(() => {}),
    );
  };

  /** Resolves when every forwarded notification is written; undefined when none was (nothing to await). */
  pending(): Promise<unknown> | undefined {
    return this.sent.length === 0 ? undefined : Promise.all(this.sent);
  }
}

/**
 * The progress of a call, or undefined when its caller sent no progressToken (most calls: they make no list).
 * A string token is echoed in every notification, so one past `server.max_client_string_chars` is refused.
 */
export function callProgress(
  token: string | number | undefined,
  ctx: RequestNotifier,
  maxChars: number,
): CallProgress | undefined {
  if (typeof token === 'string' && token.length > maxChars) {
    throw new GatewayError(
      'INVALID_ARGUMENTS',
      `_meta.progressToken is ${token.length} characters long; at most ${maxChars} are accepted (server.max_client_string_chars)`,
    );
  }
  if (token === undefined) return undefined;
  return new CallProgress(token, ctx);
}
