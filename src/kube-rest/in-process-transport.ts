import http, { IncomingMessage, STATUS_CODES, type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { syncBuiltinESMExports } from 'node:module';
import type { Socket } from 'node:net';
import { Duplex, Writable } from 'node:stream';
import { responseText, TextResponse } from './json-response.js';
import type { KubeApi } from './kube-api.js';
import { watchResponses } from './watch-stream.js';
import { currentSandbox, hostContext, type ProcessSandbox, type RunScope } from '../host/host-context.js';

/**
 * The in-process transport of simulated clusters: `node:http` / `node:https` requests to
 * {@link KUBE_HOST} are served by the {@link KubeApi} their bearer token routes to, without a
 * socket, a TLS handshake or msw's interceptor pipeline. A client built on node's `http`
 * (`@kubernetes/client-node` 1.x through node-fetch, `request`, `got`, …) runs unchanged: it
 * gets a `ClientRequest`-like writable and a real `http.IncomingMessage` for the response,
 * and a watch is a chunked response that stays open. A cut watch ends the way a dropped
 * connection ends one (node-fetch reports "Premature close"). Every request and every watch's
 * life are reported to the route ({@link WireEvents}).
 *
 * A request without a bearer token (a health check, `fetch(server + '/readyz')`) is served
 * anonymously, as kube-apiserver serves `/readyz` to anyone, on the route of the incarnation that
 * sends it. The global `fetch` (undici) does not go through node's http: in-process-fetch.ts
 * serves it through the same routes with {@link exchange} and {@link pumpWatch}.
 *
 * Known limits: no upgrades (exec, attach, port-forward), no `Expect: 100-continue`, no
 * trailers.
 * @internal
 */

/** The host every simulated cluster answers on in-process (the `server` of its kubeconfigs). @internal */
export const KUBE_HOST = 'steadystate.invalid';

/** One answered request, as the wire saw it. @internal */
export interface WireRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  status: number;
  /** When it was sent and when its response headers arrived (route clock, virtual ms). */
  startedAt: number;
  answeredAt: number;
  watch: boolean;
}

/** How a watch stream ended. @internal */
export interface WireWatchEnd {
  method: string;
  path: string;
  openedAt: number;
  endedAt: number;
  /** `server`: the API ended it; `client`: the program aborted it or went away. */
  by: 'server' | 'client';
  /** `close`: a clean end of the stream; `expire`: after an ERROR event; `cut`: the connection dropped. */
  how: 'close' | 'expire' | 'cut' | 'abort';
  /** Events written to the stream (lines), ERROR events included. */
  events: number;
  /** Reasons of the ERROR events the stream carried (`Expired`, …). */
  errors: string[];
}

/** What a route hears about its traffic. @internal */
export interface WireEvents {
  request(r: WireRequest): void;
  watchEnd(w: WireWatchEnd): void;
}

/** Where requests with one token go. @internal */
export interface TransportRoute {
  api: KubeApi;
  /** The route's clock (virtual ms), for the wire record. */
  now(): number;
  events?: WireEvents;
  /** Called when a request is sent (before it is served). */
  sent?(): void;
  /** Set when the route is removed: its process is dead, and nothing reaches it any more. */
  dead?: boolean;
  /** Whether the process is held now (see ProcessHandle.hold): responses and watch events wait for {@link TransportRoute.whenFree}. */
  held?(): boolean;
  /** Calls `fn` once the process is no longer held (in the order of the calls). */
  whenFree?(fn: () => void): void;
}

/** Waits while the route's process is held (no await at all when it is not: the interleaving of a run without holds is unchanged). */
function free(route: TransportRoute): Promise<void> | undefined {
  return route.held?.() === true && route.whenFree ? new Promise<void>((resolve) => route.whenFree!(resolve)) : undefined;
}

const routes = new Map<string, TransportRoute>();
/** Tokens once routed and removed: a dead process's requests are never answered. */
const retired = new Set<string>();
/** The run each route was made in (the async context of routeToken's caller). */
const scopes = new WeakMap<TransportRoute, RunScope>();
/** The route each incarnation's requests last carried a token for: where its token-less requests go. */
const bySandbox = new WeakMap<ProcessSandbox, TransportRoute>();
/** Token-less requests of code no route is known for yet, per route of its run: served, not recorded. */
const anonymous = new WeakMap<TransportRoute, TransportRoute>();
let holds = 0;
let restore: (() => void) | undefined;

/**
 * Serves requests carrying `token` with `route` until the returned function is called; later
 * requests with the token are never answered (their process died). Installs the transport
 * while any route or hold exists.
 * @internal
 */
export function routeToken(token: string, route: TransportRoute): () => void {
  routes.set(token, route);
  retired.delete(token);
  const scope = hostContext.getStore()?.scope;
  if (scope !== undefined) scopes.set(route, scope);
  install();
  let removed = false;
  return () => {
    if (removed) return;
    removed = true;
    if (routes.get(token) === route) routes.delete(token);
    route.dead = true;
    retired.add(token);
    maybeUninstall();
  };
}

/** Keeps the transport installed (a simulation between a crash and the restart). @internal */
export function holdTransport(): () => void {
  holds++;
  install();
  let released = false;
  return () => {
    if (released) return;
    released = true;
    holds--;
    maybeUninstall();
  };
}

/** Whether the transport is installed now. @internal */
export function transportInstalled(): boolean {
  return restore !== undefined;
}

function maybeUninstall(): void {
  if (routes.size > 0 || holds > 0 || restore === undefined) return;
  const r = restore;
  restore = undefined;
  retired.clear();
  r();
}

/**
 * Where a request to {@link KUBE_HOST} goes, for both transports: the route of its bearer token;
 * without one, the route of the incarnation sending it (anonymous: the API records the request
 * as its anonymous actor). `null`: a dead process's request, never answered; undefined: not
 * ours (an unknown token, or code outside any simulation), left to the real transport.
 * @internal
 */
export function resolveRoute(authorization: string | undefined): TransportRoute | null | undefined {
  const token = authorization !== undefined && /^bearer /i.test(authorization) ? authorization.slice(7).trim() : undefined;
  if (token !== undefined) {
    const route = routes.get(token);
    if (route === undefined) return retired.has(token) ? null : undefined;
    const sandbox = currentSandbox();
    if (sandbox !== undefined && bySandbox.get(sandbox) !== route) bySandbox.set(sandbox, route);
    return route;
  }
  const sandbox = currentSandbox();
  const own = sandbox !== undefined ? bySandbox.get(sandbox) : undefined;
  if (own !== undefined) return own.dead === true ? null : own;
  // code that never sent its token (a health check before anything else): its run's API answers,
  // but the request is recorded for no process (which one sent it is not known)
  const scope = hostContext.getStore()?.scope;
  if (scope === undefined) return undefined;
  for (const r of routes.values()) {
    if (r.dead === true || scopes.get(r) !== scope) continue;
    let anon = anonymous.get(r);
    if (anon === undefined) anonymous.set(r, (anon = { api: r.api, now: r.now }));
    return anon;
  }
  return undefined;
}

/** One request as both transports hand it to {@link exchange}. @internal */
export interface ExchangeRequest {
  method: string;
  /** Path and query. */
  path: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
  /** The exchange's abort signal (the API ends a watch on it); made on first use. */
  signal(): AbortSignal;
  /** The watch-cut fault: the connection drops. */
  cut(): void;
  /** An api-error connection fault: the request fails as a refused or reset connection does. */
  fail(code: 'ECONNREFUSED' | 'ECONNRESET'): void;
  /** Whether the client went away (nothing must be delivered to it). */
  gone(): boolean;
}

/** An answered exchange: the API's response and when the request was sent (route clock). @internal */
export interface Exchanged {
  response: Response;
  startedAt: number;
  watch: boolean;
}

/**
 * Serves one request on a route, as both transports do: the process's wait is noted, the API
 * answers, a held process gets the answer when it is free again, and the request is recorded.
 * Resolves undefined when the answer must never reach the client (it went away, or its process
 * died meanwhile: its code must not run again).
 * @internal
 */
export async function exchange(route: TransportRoute, x: ExchangeRequest): Promise<Exchanged | undefined> {
  route.sent?.();
  const startedAt = route.now();
  const request = new LightRequest(`https://${KUBE_HOST}${x.path}`, x.method, x.headers, x.body, () => x.signal());
  const response = await route.api.handle(request as unknown as Request, {
    get signal() {
      return x.signal();
    },
    cut: () => x.cut(),
    fail: (code) => x.fail(code),
  });
  if (x.gone() || route.dead) return drop(response);
  const wait = free(route);
  if (wait) {
    await wait;
    if (x.gone() || route.dead) return drop(response);
  }
  const watch = watchResponses.has(response);
  route.events?.request({ method: x.method, path: x.path, status: response.status, startedAt, answeredAt: route.now(), watch });
  return { response, startedAt, watch };
}

function drop(response: Response): undefined {
  if (!(response instanceof TextResponse)) void response.body?.cancel().catch(noop);
  return undefined;
}

/** A watch's client side, as {@link pumpWatch} feeds it. @internal */
export interface WatchSink {
  /** Hands one chunk of events to the client. */
  push(chunk: Uint8Array): void;
  /** Whether the client ended the stream (destroyed the response, cancelled the body). */
  closed(): boolean;
  /** Whether the client aborted the request. */
  aborted(): boolean;
  /** Whether the watch-cut fault hit the stream. */
  cutRequested(): boolean;
  /** Given the reader of the API's stream, so the client can cancel it. */
  reading(reader: ReadableStreamDefaultReader<Uint8Array>): void;
}

/**
 * Feeds a watch stream into a client until one side ends it, and records its end (both
 * transports). Resolves how it ended; the caller ends its side accordingly.
 * @internal
 */
export async function pumpWatch(route: TransportRoute, x: { method: string; path: string }, response: Response, openedAt: number, sink: WatchSink): Promise<WireWatchEnd['how']> {
  const reader = response.body!.getReader();
  sink.reading(reader);
  let events = 0;
  const errors: string[] = [];
  const decoder = new TextDecoder();
  let how: WireWatchEnd['how'] = 'close';
  let by: WireWatchEnd['by'] = 'server';
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch {
      how = 'cut';
      break;
    }
    if (chunk.done || route.dead) break;
    const text = decoder.decode(chunk.value, { stream: true });
    const answers: number[] = [];
    for (const line of text.split('\n')) {
      if (line === '') continue;
      events++;
      if (line.startsWith('{"type":"ERROR"')) errors.push(/"reason":"([^"]*)"/.exec(line)?.[1] ?? 'Unknown');
      else {
        const rv = /"resourceVersion":"(\d+)"/.exec(line)?.[1];
        if (rv !== undefined) answers.push(Number(rv));
      }
    }
    const wait = free(route);
    if (wait) await wait;
    if (sink.closed() || route.dead) break;
    // the program's handlers of these events (and what they go on to do) answer them
    const store = hostContext.getStore();
    if (store?.sandbox !== undefined && answers.length > 0) hostContext.run({ scope: store.scope, sandbox: store.sandbox, answers }, () => sink.push(chunk.value));
    else sink.push(chunk.value);
  }
  if (sink.cutRequested()) how = 'cut';
  else if (sink.closed() || sink.aborted()) {
    by = 'client';
    how = 'abort';
  } else if (errors.length > 0) how = 'expire';
  route.events?.watchEnd({ method: x.method, path: x.path, openedAt, endedAt: route.now(), by, how, events, errors });
  void reader.cancel().catch(noop);
  return how;
}

/**
 * Runs a watch's stream detached from the program's schedule that (re)opened it: its events are
 * news from the world, whatever opened it, so their handlers never run as that schedule's
 * continuation.
 * @internal
 */
export function detached<T>(fn: () => Promise<T>): Promise<T> {
  const store = hostContext.getStore();
  return store?.timer !== undefined || store?.wake !== undefined ? hostContext.run({ scope: store.scope, ...(store.sandbox ? { sandbox: store.sandbox } : {}) }, fn) : fn();
}

type RequestFn = typeof http.request;

function install(): void {
  if (restore !== undefined) return;
  const real = { http: { request: http.request, get: http.get }, https: { request: https.request, get: https.get } };
  const wrap = (mod: 'http' | 'https', fn: RequestFn, isGet: boolean): RequestFn =>
    function request(this: unknown, ...args: unknown[]): http.ClientRequest {
      const o = requestOptions(mod, args);
      if (o === undefined) return (fn as (...a: unknown[]) => http.ClientRequest).apply(this, args);
      const route = resolveRoute(o.headers['authorization']);
      if (route === undefined) return (fn as (...a: unknown[]) => http.ClientRequest).apply(this, args);
      const req = new InProcessRequest(o, route ?? undefined);
      if (o.callback) req.once('response', o.callback);
      if (isGet) req.end();
      return req as unknown as http.ClientRequest;
    } as RequestFn;
  http.request = wrap('http', real.http.request, false);
  http.get = wrap('http', real.http.get, true) as typeof http.get;
  https.request = wrap('https', real.https.request, false);
  https.get = wrap('https', real.https.get, true) as typeof https.get;
  syncBuiltinESMExports();
  restore = () => {
    http.request = real.http.request;
    http.get = real.http.get;
    https.request = real.https.request;
    https.get = real.https.get;
    syncBuiltinESMExports();
  };
}

interface Options {
  protocol: string;
  host: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  timeout?: number;
  signal?: AbortSignal;
  callback?: (res: IncomingMessage) => void;
}

/** `(url, options?, cb?)` or `(options, cb?)` as node's http.request takes them; undefined unless the host is ours. */
function requestOptions(mod: 'http' | 'https', args: unknown[]): Options | undefined {
  let url: URL | undefined;
  let opts: Record<string, unknown> = {};
  let i = 0;
  if (typeof args[0] === 'string' || args[0] instanceof URL) {
    try {
      url = new URL(String(args[0]));
    } catch {
      return undefined;
    }
    i = 1;
  }
  if (args[i] !== null && typeof args[i] === 'object') opts = args[i++] as Record<string, unknown>;
  const callback = typeof args[i] === 'function' ? (args[i] as (res: IncomingMessage) => void) : undefined;
  const hostname = String(opts['hostname'] ?? opts['host'] ?? url?.hostname ?? '').replace(/:\d+$/, '');
  if (hostname !== KUBE_HOST) return undefined;
  const headers: Record<string, string> = {};
  const raw = (opts['headers'] ?? {}) as Record<string, unknown>;
  for (const [k, v] of Object.entries(raw)) if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
  return {
    protocol: String(opts['protocol'] ?? url?.protocol ?? `${mod}:`),
    host: hostname,
    method: String(opts['method'] ?? 'GET').toUpperCase(),
    path: String(opts['path'] ?? (url ? `${url.pathname}${url.search}` : '/')),
    headers,
    ...(typeof opts['timeout'] === 'number' ? { timeout: opts['timeout'] } : {}),
    ...(opts['signal'] instanceof AbortSignal ? { signal: opts['signal'] } : {}),
    ...(callback ? { callback } : {}),
  };
}

/**
 * What the API reads of a request ({@link KubeApi.handle} needs `url`, `method`, `headers.get`,
 * `text()` and `signal`): a web `Request` costs a body stream per call, which is most of what a
 * reconcile costs through this transport.
 */
class LightRequest {
  readonly headers: { get(name: string): string | null };
  constructor(
    readonly url: string,
    readonly method: string,
    headers: Record<string, string>,
    private readonly body: string,
    private readonly signalOf: () => AbortSignal,
  ) {
    this.headers = { get: (name) => headers[name.toLowerCase()] ?? null };
  }
  get signal(): AbortSignal {
    return this.signalOf();
  }
  text(): Promise<string> {
    return Promise.resolve(this.body);
  }
}

/**
 * The socket a request reports: a real (empty) duplex stream, so code that destroys a response
 * mid-body, waits for the socket to finish, sets keep-alive or counts its listeners works.
 */
class InProcessSocket extends Duplex {
  readonly remoteAddress = '127.0.0.1';
  readonly remotePort = 443;
  readonly encrypted = true;
  readonly authorized = true;
  override _read(): void {}
  override _write(_chunk: unknown, _encoding: BufferEncoding, cb: () => void): void {
    cb();
  }
  setKeepAlive(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setTimeout(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
}

const noop = (): void => undefined;

/**
 * A request in flight: a writable that collects the body and, at `end()`, hands the request to
 * the API; the response is a real `IncomingMessage` fed from the API's `Response`.
 */
class InProcessRequest extends Writable {
  readonly method: string;
  readonly path: string;
  readonly host: string;
  readonly protocol: string;
  readonly socket = new InProcessSocket();
  readonly connection = this.socket;
  reusedSocket = false;
  aborted = false;
  private readonly chunks: Buffer[] = [];
  private readonly headers: Record<string, string>;
  /** Created on first use (most requests never need it: an AbortController costs a DOMException on abort). */
  private aborterImpl: AbortController | undefined;
  private get aborter(): AbortController {
    return (this.aborterImpl ??= new AbortController());
  }
  private finished = false;
  private res: IncomingMessage | undefined;
  private reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  private cutRequested = false;

  constructor(
    o: Options,
    private readonly route: TransportRoute | undefined,
  ) {
    // a request lives until its response ends (node's ClientRequest closes then, not at finish)
    super({ autoDestroy: false });
    this.method = o.method;
    this.path = o.path;
    this.host = o.host;
    this.protocol = o.protocol;
    this.headers = o.headers;
    o.signal?.addEventListener('abort', () => this.destroy(), { once: true });
    process.nextTick(() => {
      if (!this.destroyed) this.emit('socket', this.socket);
    });
  }

  setHeader(name: string, value: unknown): this {
    this.headers[name.toLowerCase()] = String(value);
    return this;
  }
  getHeader(name: string): string | undefined {
    return this.headers[name.toLowerCase()];
  }
  removeHeader(name: string): void {
    delete this.headers[name.toLowerCase()];
  }
  flushHeaders(): void {}
  setNoDelay(): void {}
  setSocketKeepAlive(): void {}
  setTimeout(ms: number, cb?: () => void): this {
    if (cb) this.once('timeout', cb);
    // the program's own timer (virtual in a hosted process)
    const t = setTimeout(() => this.emit('timeout'), ms);
    this.once('close', () => clearTimeout(t));
    return this;
  }

  override _write(chunk: Buffer | string, encoding: BufferEncoding, cb: (e?: Error | null) => void): void {
    this.chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, encoding) : chunk);
    cb();
  }

  override _final(cb: (e?: Error | null) => void): void {
    cb();
    // a dead process's request: never answered
    if (this.route === undefined) return;
    void this.send(this.route);
  }

  override _destroy(err: Error | null, cb: (e?: Error | null) => void): void {
    this.abortExchange();
    cb(err);
  }

  /** `req.abort()` (deprecated, still used by node-fetch 2). */
  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.emit('abort');
    this.destroy();
  }

  private abortExchange(): void {
    if (this.finished) return;
    if (this.aborterImpl !== undefined && !this.aborterImpl.signal.aborted) this.aborterImpl.abort();
    // a watch being read ends now (the server side learns through the signal)
    void this.reader?.cancel().catch(noop);
    const res = this.res;
    if (res !== undefined && !res.complete && !res.destroyed) res.destroy();
  }

  private async send(route: TransportRoute): Promise<void> {
    const body = this.chunks.length === 0 ? '' : Buffer.concat(this.chunks).toString('utf8');
    const self = this;
    const done = await exchange(route, {
      method: this.method,
      path: this.path,
      headers: this.headers,
      body,
      signal: () => this.aborter.signal,
      cut: () => this.cut(),
      // an api-error connection fault: the request fails as node's does on a refused or reset socket
      fail: (code) => {
        this.destroy(Object.assign(new Error(code === 'ECONNREFUSED' ? `connect ECONNREFUSED ${KUBE_HOST}` : 'socket hang up'), { code }));
      },
      gone: () => self.destroyed,
    });
    if (done === undefined) return;
    const { response, startedAt, watch } = done;
    const res = new IncomingMessage(this.socket as unknown as Socket);
    this.res = res;
    res.statusCode = response.status;
    res.statusMessage = response.statusText || STATUS_CODES[response.status] || '';
    res.httpVersion = '1.1';
    res.httpVersionMajor = 1;
    res.httpVersionMinor = 1;
    const headers: IncomingHttpHeaders = {};
    const rawHeaders: string[] = [];
    response.headers.forEach((v, k) => {
      headers[k] = v;
      rawHeaders.push(k, v);
    });
    if (watch) {
      headers['transfer-encoding'] = 'chunked';
      rawHeaders.push('transfer-encoding', 'chunked');
    }
    res.headers = headers;
    res.rawHeaders = rawHeaders;
    (res as { req?: unknown }).req = this;
    this.emit('response', res);
    if (watch) await detached(() => this.stream(route, response, res, startedAt));
    else {
      const text = await responseText(response);
      if (res.destroyed || route.dead) return;
      if (text !== '') res.push(Buffer.from(text, 'utf8'));
      res.complete = true;
      res.push(null);
      this.finished = true;
      res.once('end', () => this.destroy());
    }
  }

  /** Feeds a watch stream into the response until one side ends it. */
  private async stream(route: TransportRoute, response: Response, res: IncomingMessage, openedAt: number): Promise<void> {
    // while a chunked body is being read, the parser listens on the socket: node-fetch takes a
    // close in that state for a dropped connection ("Premature close")
    this.socket.on('data', noop);
    const how = await pumpWatch(route, this, response, openedAt, {
      push: (chunk) => res.push(Buffer.from(chunk)),
      closed: () => res.destroyed,
      aborted: () => this.aborter.signal.aborted,
      cutRequested: () => this.cutRequested,
      reading: (reader) => (this.reader = reader),
    });
    if (res.destroyed || route.dead) return;
    if (how === 'cut') {
      // the connection dropped mid-body: the socket closes under the parser
      this.socket.destroy();
      res.destroy();
      return;
    }
    this.socket.removeListener('data', noop);
    res.complete = true;
    res.push(null);
    this.finished = true;
    res.once('end', () => this.destroy());
  }

  /** The watch-cut fault: the connection drops. */
  private cut(): void {
    this.cutRequested = true;
  }
}
