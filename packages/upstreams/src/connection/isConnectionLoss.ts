import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { describeError } from '../describeError.js';

/** Whether an error means the connection itself is gone (rather than one request failing). */
export function isConnectionLoss(error: unknown): boolean {
  if (error instanceof SdkError) {
    if (
      error.code === SdkErrorCode.ConnectionClosed ||
      error.code === SdkErrorCode.NotConnected ||
      error.code === SdkErrorCode.SendFailed
    ) {
      return true;
    }
    // A 2025-era server that lost our session (restarted) answers 404.
    const status = (error as { status?: unknown }).status;
    if (status === 404) return true;
  }
  const text = describeError(error);
  return /fetch failed|ECONNREFUSED|ECONNRESET|EPIPE|socket hang up|other side closed|not running/i.test(
    text,
  );
}
