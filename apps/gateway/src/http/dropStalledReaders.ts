import type { Server, Socket } from 'node:net';

/** Options of dropStalledReaders. */
export interface StalledReaderOptions {
  /** How long output may wait unread in a connection's buffer before the connection is closed. */
  readonly sendTimeoutMs: number;
  /** Called once for each connection closed this way. */
  readonly onDropped?: () => void;
}

/**
 * Closes connections whose client stops reading: output that stays queued in the process (the kernel's
 * buffers are full) for `sendTimeoutMs` without the queue ever emptying ends the connection. Without it a
 * client could hold every answer it never reads in memory, up to the response bound per connection, for
 * as long as it liked. Applies to every response of every era and transport, since it watches sockets.
 */
export function dropStalledReaders(server: Server, options: StalledReaderOptions): void {
  // When each socket's queue was first seen non-empty since it last drained.
  const stalledSince = new Map<Socket, number>();
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    socket.on('drain', () => stalledSince.delete(socket));
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      stalledSince.delete(socket);
    });
  });
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const socket of sockets) {
        if (socket.writableLength === 0) {
          stalledSince.delete(socket);
          continue;
        }
        const since = stalledSince.get(socket);
        if (since === undefined) stalledSince.set(socket, now);
        else if (now - since >= options.sendTimeoutMs) {
          stalledSince.delete(socket);
          socket.destroy();
          options.onDropped?.();
        }
      }
    },
    Math.max(50, Math.min(1000, Math.floor(options.sendTimeoutMs / 4))),
  );
  sweep.unref();
  server.once('close', () => clearInterval(sweep));
}
