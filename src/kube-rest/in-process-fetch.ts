import { connectionResetError } from '../downstream/errors.js';
import { bodyTextOf, requestParts, type RequestLike, type RequestParts } from '../downstream/request-parts.js';
import { detached, exchange, KUBE_HOST, pumpWatch, resolveRoute, type ExchangeRequest, type TransportRoute } from './in-process-transport.js';

/**
 * The global `fetch` (undici) to the simulated API server: a hosted program's
 * `fetch('https://steadystate.invalid/readyz')` or raw API call with `kc.applyToFetchOptions`
 * headers is served by the {@link KubeApi} its bearer token routes to, exactly as node's
 * `http`/`https` are (in-process-transport.ts: the same routes, recording, holds and HTTP-layer
 * faults). What undici would do is imitated where a program can tell: a refused or reset
 * connection rejects with `TypeError('fetch failed')` and a `cause` carrying the code, a watch cut
 * mid-body errors the body stream with `TypeError('terminated')`, an abort rejects with the
 * signal's reason.
 *
 * Known limits: a watch read through `fetch` does not tell the program's handlers which events
 * they answer (node's http does, see pumpWatch), so writes made in reaction to such events are
 * attributed as the code around the read is; no redirects, no `Response.redirected`.
 * @internal
 */

/**
 * Serves a `fetch(input, init)` to {@link KUBE_HOST} in-process, or returns undefined when the
 * call is not for a simulated cluster (another host, an unknown token, code outside any
 * simulation): the caller's own fetch handles it then. Never throws.
 * @internal
 */
export function inProcessFetch(input: string | URL | Request, init: RequestInit | undefined): Promise<Response> | undefined {
  let parts: RequestParts;
  let url: URL;
  try {
    parts = requestParts(input as string | URL | RequestLike, init);
    url = new URL(parts.url);
  } catch {
    return undefined;
  }
  if (url.hostname !== KUBE_HOST) return undefined;
  let headers: Record<string, string>;
  try {
    headers = headersOf(parts, init);
  } catch {
    return undefined;
  }
  const route = resolveRoute(headers['authorization']);
  if (route === undefined) return undefined;
  // a dead process's request: never answered (its code must not run again)
  if (route === null) return new Promise<Response>(() => {});
  return send(route, parts, url, headers, init);
}

/** Every request header, names lower-case (init headers replace the Request's, as undici does). */
function headersOf(parts: RequestParts, init: RequestInit | undefined): Record<string, string> {
  const given = init?.headers ?? parts.request?.headers;
  const out: Record<string, string> = {};
  // a Headers of node-fetch (what kc.applyToFetchOptions returns) is iterable like the web one
  if (given !== undefined) new Headers(given as HeadersInit).forEach((v, k) => (out[k] = v));
  return out;
}

/** undici's rejection for a connection that failed: `TypeError('fetch failed')` with the system error as cause. */
function connectionError(code: 'ECONNREFUSED' | 'ECONNRESET'): TypeError {
  if (code === 'ECONNRESET') return connectionResetError();
  const cause = Object.assign(new Error(`connect ECONNREFUSED ${KUBE_HOST}`), { code, errno: -111, syscall: 'connect' });
  return new TypeError('fetch failed', { cause });
}

/** undici's error for a body whose connection dropped mid-stream. */
function terminated(): TypeError {
  return new TypeError('terminated', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });
}

async function send(route: TransportRoute, parts: RequestParts, url: URL, headers: Record<string, string>, init: RequestInit | undefined): Promise<Response> {
  const signal = parts.signal;
  if (signal?.aborted) throw signal.reason;
  const text = bodyTextOf(parts, init);
  const body = (typeof text === 'object' ? await text : text) ?? '';
  let aborter: AbortController | undefined;
  let settled = false;
  let closed = false;
  let cutRequested = false;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let body$: ReadableStreamDefaultController<Uint8Array> | undefined;
  return new Promise<Response>((resolve, reject) => {
    const fail = (err: unknown): void => {
      if (!settled) {
        settled = true;
        reject(err);
      }
    };
    // the client goes away: the API ends what it serves (a watch), the caller hears the reason
    const abort = (): void => {
      if (closed) return;
      closed = true;
      if (aborter !== undefined && !aborter.signal.aborted) aborter.abort();
      void reader?.cancel().catch(() => undefined);
      fail(signal!.reason);
      try {
        body$?.error(signal!.reason);
      } catch {
        // the body ended already
      }
    };
    signal?.addEventListener('abort', abort, { once: true });
    const x: ExchangeRequest = {
      method: parts.method,
      path: `${url.pathname}${url.search}`,
      headers,
      body,
      signal: () => (aborter ??= new AbortController()).signal,
      cut: () => {
        cutRequested = true;
      },
      fail: (code) => {
        closed = true;
        fail(connectionError(code));
      },
      gone: () => closed,
    };
    exchange(route, x).then(
      (done) => {
        if (done === undefined) return;
        const { response, startedAt, watch } = done;
        settled = true;
        if (!watch) {
          signal?.removeEventListener('abort', abort);
          Object.defineProperty(response, 'url', { value: url.href });
          resolve(response);
          return;
        }
        const stream = new ReadableStream<Uint8Array>({
          start(c) {
            body$ = c;
          },
          // the program stopped reading (reader.cancel(), or the body was dropped)
          cancel() {
            closed = true;
            if (aborter !== undefined && !aborter.signal.aborted) aborter.abort();
            void reader?.cancel().catch(() => undefined);
          },
        });
        const out = new Response(stream, { status: response.status, statusText: response.statusText, headers: response.headers });
        Object.defineProperty(out, 'url', { value: url.href });
        resolve(out);
        void detached(() =>
          pumpWatch(route, x, response, startedAt, {
            push: (chunk) => body$!.enqueue(chunk),
            closed: () => closed,
            aborted: () => signal?.aborted === true,
            cutRequested: () => cutRequested,
            reading: (r) => (reader = r),
          }),
        ).then((how) => {
          signal?.removeEventListener('abort', abort);
          if (closed || route.dead) return;
          if (how === 'cut') body$!.error(terminated());
          else body$!.close();
        });
      },
      (err: unknown) => fail(err),
    );
  });
}
