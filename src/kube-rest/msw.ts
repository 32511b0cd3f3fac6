import type { ClientRequest } from 'node:http';
import { createRequire } from 'node:module';
import type * as Msw from 'msw';
import type { RequestHandler } from 'msw';
import { getRawRequest } from '@mswjs/interceptors';
import type { KubeApi } from './kube-api.js';
import type { HandleOptions } from './serve-context.js';
import { watchResponses } from './watch-stream.js';
import { KUBE_HOST } from './in-process-transport.js';

/** Options of {@link kubeRestHandlers}. @public */
export interface KubeRestHandlersOptions {
  /** Where the API is served, the `server` of the client's kubeconfig. @defaultValue 'https://steadystate.invalid' */
  baseUrl?: string;
}

/** The host every simulated cluster answers on in-process. @public */
export const KUBE_BASE_URL = `https://${KUBE_HOST}`;

const newline = new TextEncoder().encode('\n');

/**
 * What the in-process transport adds to {@link KubeApi.handle}: a signal that fires when the
 * client drops the request (msw's interceptor does not abort `request.signal`), and a cut that
 * destroys the client's socket (the watch-disconnect fault).
 * @internal
 */
export function mswTransport(request: Request): HandleOptions {
  const raw = getRawRequest(request) as ClientRequest | undefined;
  if (raw === undefined || typeof raw.on !== 'function') return {};
  // msw's mock socket has no handle, so node adds a never-fired 'connect' listener on each read:
  // harmless for a socket that lives one run, but it would warn on every long watch
  raw.socket?.setMaxListeners(0);
  const aborted = new AbortController();
  raw.once('close', () => aborted.abort());
  return {
    signal: aborted.signal,
    cut: () => raw.destroy(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })),
    fail: (code) => raw.destroy(Object.assign(new Error(code === 'ECONNREFUSED' ? 'connect ECONNREFUSED' : 'read ECONNRESET'), { code })),
  };
}

/**
 * Adapts a response for msw: a watch stream starts with an empty line, because msw's socket
 * sends the status line only with the first body chunk and a watch may be quiet for long
 * (clients skip blank lines between events).
 * @internal
 */
export function forMsw(response: Response): Response {
  if (!watchResponses.has(response) || response.body === null) return response;
  const reader = response.body.getReader();
  let first = true;
  const body = new ReadableStream<Uint8Array>({
    async pull(c) {
      if (first) {
        first = false;
        c.enqueue(newline);
        return;
      }
      const { done, value } = await reader.read();
      if (done) c.close();
      else c.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}

/**
 * msw handlers serving `api` (every method, every path under `baseUrl`), for use with your own
 * `setupServer(...)`. Clients built on node's `http` (`@kubernetes/client-node` 1.x through
 * node-fetch) are intercepted; clients on undici (`@kubernetes/client-node` 2.x) are not: use
 * {@link startLoopback} for them.
 * @example
 * const server = setupServer(...kubeRestHandlers(createKubeApi({ store })));
 * server.listen();
 * @public
 */
export function kubeRestHandlers(api: KubeApi, options: KubeRestHandlersOptions = {}): RequestHandler[] {
  const base = (options.baseUrl ?? KUBE_BASE_URL).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+/.test(base)) throw new TypeError(`steadystate.kubeRestHandlers: baseUrl must be an http(s) URL such as '${KUBE_BASE_URL}', got ${JSON.stringify(options.baseUrl)}`);
  return [msw().http.all(`${base}/*`, ({ request }) => handleThroughMsw(api, request))];
}

let loaded: typeof Msw | undefined;

/**
 * msw, loaded when `kubeRestHandlers` is first called: only a user's own `setupServer` needs it,
 * and msw with graphql is 190 of the files an import of steadystate would open (the CLI imports
 * steadystate in its main thread and in its worker, for every check). Its CommonJS build: a
 * handler of it serves in any msw's `setupServer`, which tells handlers by their `__kind`, not by
 * class identity.
 */
function msw(): typeof Msw {
  return (loaded ??= createRequire(import.meta.url)('msw') as typeof Msw);
}

/** Serves `api` through msw for one request (transport options and watch framing included). @internal */
export async function handleThroughMsw(api: KubeApi, request: Request): Promise<Response> {
  return forMsw(await api.handle(request, mswTransport(request)));
}
