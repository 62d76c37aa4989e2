import type { Server, Socket } from 'node:net';

/** Why a connection was closed on accept. */
export type RefusedConnectionReason = 'max_connections' | 'per_address';

/** Options of limitConnections. */
export interface ConnectionLimitOptions {
  /** Most open connections in all. */
  readonly maxConnections: number;
  /** Most open connections from one remote address; 0 = no cap. */
  readonly maxPerAddress: number;
  /** Called once for each connection closed on accept. */
  readonly onRefused?: (reason: RefusedConnectionReason) => void;
}

// An IPv4 client reaching a dual-stack listener shows up as ::ffff:a.b.c.d; count it as a.b.c.d.
const addressKey = (socket: Socket): string => {
  const address = socket.remoteAddress ?? '';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
};

/**
 * Caps the server's open TCP connections, in all and per remote address, by closing excess sockets as
 * soon as they are accepted (before a byte is parsed). The address is the TCP peer: X-Forwarded-For is
 * not known at accept time and anyone can write it.
 */
export function limitConnections(server: Server, options: ConnectionLimitOptions): void {
  // node:net drops connections past maxConnections itself; 'drop' is how it says so.
  server.maxConnections = options.maxConnections;
  server.on('drop', () => options.onRefused?.('max_connections'));
  if (options.maxPerAddress <= 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const key = addressKey(socket);
    const count = open.get(key) ?? 0;
    if (count >= options.maxPerAddress) {
      socket.destroy();
      options.onRefused?.('per_address');
      return;
    }
    open.set(key, count + 1);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left > 0) open.set(key, left);
      else open.delete(key);
    });
  });
}
