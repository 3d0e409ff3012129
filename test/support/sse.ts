/** A small Server-Sent Events client for tests, over fetch and eventsource-parser. */
import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** What one connection to a stream produced. */
export interface SseSession {
  status: number;
  headers: Headers;
  /** Messages in arrival order. */
  messages: EventSourceMessage[];
  /** The raw text received (comments and `retry:` included). */
  raw: string;
  /** Resolves when the server ended the stream (or the test aborted it). */
  ended: Promise<void>;
  /** Resolves with the first message for which `match` holds. */
  waitFor(match: (message: EventSourceMessage) => boolean, timeoutMs?: number): Promise<EventSourceMessage>;
  /** Drops the connection from the client side. */
  abort(): void;
}

/** Opens `url` as an event stream with `headers`; for a non-200 answer, `raw` holds the body. */
export async function openStream(url: string, headers: Record<string, string> = {}): Promise<SseSession> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  const messages: EventSourceMessage[] = [];
  const waiters: Array<{ match: (m: EventSourceMessage) => boolean; resolve: (m: EventSourceMessage) => void }> = [];
  const session: SseSession = {
    status: response.status,
    headers: response.headers,
    messages,
    raw: '',
    ended: Promise.resolve(),
    waitFor(match, timeoutMs = 20_000) {
      const found = messages.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no matching event within ${timeoutMs} ms; got ${JSON.stringify(messages)}`)),
          timeoutMs,
        );
        waiters.push({
          match,
          resolve: (m) => {
            clearTimeout(timer);
            resolve(m);
          },
        });
      });
    },
    abort: () => controller.abort(),
  };
  if (response.status !== 200 || !response.body) {
    session.raw = await response.text();
    return session;
  }
  const parser = createParser({
    onEvent(message) {
      messages.push(message);
      for (const waiter of [...waiters]) {
        if (waiter.match(message)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(message);
        }
      }
    },
  });
  const decoder = new TextDecoder();
  session.ended = (async () => {
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        const text = decoder.decode(chunk, { stream: true });
        session.raw += text;
        parser.feed(text);
      }
    } catch (err) {
      if ((err as Error).name !== 'AbortError') throw err;
    }
  })();
  return session;
}
