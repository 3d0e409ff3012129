/**
 * A local webhook receiver for the webhook tests: listens on 127.0.0.1 (only when told to, so a test can
 * first have it refuse connections), records every request with its raw body, and answers with whatever
 * `respond` decides (200 by default). A server delivers to it only with LOCAL_RECEIVER_ENV.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { freePort } from './process.js';

/**
 * What a sandbox server's environment needs to deliver to a receiver on this machine: webhooks reach only
 * public addresses unless WEBHOOK_ALLOW_PRIVATE_TARGETS lifts the rule. Tests that use a receiver set it.
 */
export const LOCAL_RECEIVER_ENV = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } as const;

/** One request the receiver got. */
export interface ReceivedDelivery {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  receivedAt: Date;
  /** Which connection it came on: 1 for the receiver's first, and so on. */
  connection: number;
}

/** A receiver on a fixed port that can be started, stopped and told how to answer. */
export interface Receiver {
  port: number;
  url: string;
  received: ReceivedDelivery[];
  /**
   * How to answer a request: a status (and optional reason phrase, headers and body), 'hang' to never answer,
   * or 'drop' to close the connection without an answer.
   */
  respond: (delivery: ReceivedDelivery) => Answer | 'hang' | 'drop';
  /** Connections open now, and the most that were open at once since listen(). */
  openConnections(): number;
  maxOpenConnections(): number;
  /** Closes every open connection (hanging requests included) and keeps listening. */
  dropConnections(): void;
  listen(): Promise<void>;
  close(): Promise<void>;
  /** Resolves once `done(received)` holds; rejects after `timeoutMs`. */
  waitFor(done: (received: ReceivedDelivery[]) => boolean, timeoutMs?: number): Promise<ReceivedDelivery[]>;
}

/** An answer the receiver gives. */
export interface Answer {
  status: number;
  statusText?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** A receiver on a free port, not listening yet (connections to it are refused until listen()). */
export async function createReceiver(path = '/hooks'): Promise<Receiver> {
  const port = await freePort();
  let server: http.Server | undefined;
  const connections = new WeakMap<object, number>();
  let connectionCount = 0;
  const open = new Set<Socket>();
  let maxOpen = 0;
  const receiver: Receiver = {
    port,
    url: `http://127.0.0.1:${port}${path}`,
    received: [],
    respond: () => ({ status: 200 }),
    openConnections: () => open.size,
    maxOpenConnections: () => maxOpen,
    dropConnections() {
      for (const socket of open) socket.destroy();
    },
    async listen() {
      server = http.createServer((req, res) => {
        if (!connections.has(req.socket)) connections.set(req.socket, ++connectionCount);
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          const delivery = {
            method: req.method ?? '',
            path: req.url ?? '',
            headers: req.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            receivedAt: new Date(),
            connection: connections.get(req.socket)!,
          };
          receiver.received.push(delivery);
          const answer = receiver.respond(delivery);
          if (answer === 'hang') return;
          if (answer === 'drop') return void req.socket.destroy();
          if (answer.statusText) res.writeHead(answer.status, answer.statusText, answer.headers);
          else res.writeHead(answer.status, answer.headers);
          res.end(answer.body);
        });
      });
      maxOpen = 0;
      server.on('connection', (socket) => {
        open.add(socket);
        maxOpen = Math.max(maxOpen, open.size);
        socket.on('close', () => open.delete(socket));
      });
      await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
      if ((server.address() as AddressInfo).port !== port) throw new Error('receiver port moved');
    },
    async close() {
      if (!server) return;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server!.close(() => resolve()));
      server = undefined;
    },
    async waitFor(done, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!done(receiver.received)) {
        if (Date.now() > deadline) throw new Error(`receiver: condition not met; got ${receiver.received.length} request(s)`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return receiver.received;
    },
  };
  return receiver;
}
