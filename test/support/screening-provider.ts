/** A local screening provider (docs/screening.md) for tests: node:http on a free port, answering as the test decides. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the local provider answers one request: a status, a raw body, and how long it waits first. */
export interface ProviderAnswer {
  status?: number;
  body: string;
  delayMs?: number;
}

/** A subject the provider is asked about. */
export interface Asked {
  network: string;
  address: string;
  role: string;
}

/** A local screening provider whose answers the test decides (`answer`), recording what it was asked. */
export async function startScreeningProvider() {
  const asked: Asked[] = [];
  const provider = {
    asked,
    url: '',
    answer: (_subject: Asked): ProviderAnswer => ({ body: JSON.stringify({ decision: 'allow' }) }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      const subject = JSON.parse(text) as Asked;
      asked.push(subject);
      const { status = 200, body, delayMs = 0 } = provider.answer(subject);
      const timer = setTimeout(() => res.writeHead(status, { 'content-type': 'application/json' }).end(body), delayMs);
      res.on('close', () => clearTimeout(timer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  provider.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/screen`;
  server.unref();
  return provider;
}

/** A provider answer that denies, with `reason`. */
export const deny = (reason: string): ProviderAnswer => ({ body: JSON.stringify({ decision: 'deny', reason }) });
/** A provider answer that allows. */
export const allow: ProviderAnswer = { body: JSON.stringify({ decision: 'allow' }) };
