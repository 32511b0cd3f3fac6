/**
 * Per-run interception of downstream HTTP (SPEC §2.3). Nothing leaves the process: fake
 * services answer on a fast path, msw handlers answer the rest, and anything else is an error.
 * Faults come in as decisions from `host.decide`; all waiting happens on the virtual clock.
 *
 * Known limits of the simulation (what real fetch does that this does not):
 * - no redirects, cookies, compression or connection reuse;
 * - latency (a fake service's `latencyMs` and injected `latency`) is applied before the request
 *   reaches the service, none after it answers; `hang` never reaches it (use
 *   `applied-but-lost` for "the write happened but the caller never heard");
 * - `AbortSignal.timeout()` and msw's `delay()` in user code run on real timers, so they do not
 *   fire in virtual time: give the client timeout as `timeoutMs` instead;
 * - fast-path responses are {@link SimResponse}s (no body stream), not `Response` instances;
 * - calls that fail before a request exists (unparseable URL, invalid init) reject as fetch
 *   does and are not recorded.
 */
import type { RequestHandler } from 'msw';
import type { Kernel, Task } from '../sim/kernel.js';
import { endpointOf } from './endpoint-of.js';
import { UnhandledRequestError, connectionResetError, networkError, timeoutError } from './errors.js';
import type { FakeRestService, RestRoute } from './fake-rest-service.js';
import type { FetchDecision, FetchInfo } from './fetch-decision.js';
import type { RefusedRequest } from './net-guard.js';
import { isMutating, type RequestOutcome, type RequestRecord } from './request-log.js';
import { bodyTextOf, headerOf, requestParts, type RequestLike, type RequestParts } from './request-parts.js';
import { SimResponse, statusTextOf, type HeaderPairs } from './sim-response.js';

/**
 * What the downstream needs from the simulation: the virtual clock, parking (so the kernel
 * knows a task waits on the simulation, not on the host) and the fault seam.
 * A `Kernel` plus `decide`/`onRecord` satisfies it.
 * @public
 */
export interface DownstreamHost {
  now(): number;
  /** Schedules fn on the virtual clock; a returned `{ cancelled }` handle lets aborts drop it. */
  after(ms: number, fn: () => void): void | { cancelled: boolean };
  park: Kernel['park'];
  touch(): void;
  /**
   * Tells the simulation that code it does not drive as a task may run now (`Kernel.external`),
   * so it lets that code run before virtual time moves on. Called when the wait of a call made
   * without a task (a hosted program's, or any global `fetch`) ends: without it, the caller would
   * hear the answer whenever the kernel next happened to give the host a turn, which depends on
   * how often its loop went round waiting on real work (module loading, real I/O), not on the run.
   */
  external?(): void;
  /** The fault seam: asked once per request that reaches routing; undefined means pass. */
  decide?: ((info: FetchInfo) => FetchDecision) | undefined;
  /** Called with each record as it is appended to the log. */
  onRecord?: ((record: RequestRecord) => void) | undefined;
  /** Called for each request no service or handler answers (the verdict names it). */
  onRefused?: ((request: RefusedRequest, task: Task | undefined) => void) | undefined;
}

/**
 * Options of {@link createDownstream}.
 * @public
 */
export interface CreateDownstreamOptions {
  /**
   * Built-in fake services; served on the fast path (no web Request/Response objects).
   * @defaultValue []
   */
  services?: FakeRestService[];
  /**
   * msw handlers (`http.get(…)`) for everything else, tried in order, first response wins.
   * Do not use msw's `delay()` in them: it sleeps on real timers. Use a `latency` decision.
   * @defaultValue []
   */
  handlers?: RequestHandler[];
  /**
   * Client timeout in virtual ms: a hanging request rejects with `TimeoutError` after it.
   * @defaultValue 30_000
   */
  timeoutMs?: number;
}

/** @internal */
export interface ResolvedDownstreamOptions {
  /** As given. */
  services: FakeRestService[];
  /** Longest base URL first, so 'https://api.example/v2' wins over 'https://api.example'. */
  routing: FakeRestService[];
  handlers: RequestHandler[];
  timeoutMs: number;
}

/**
 * The per-run downstream: a `fetch` that never leaves the process, plus the request log.
 * @public
 */
export interface Downstream {
  /**
   * `fetch` as seen by one task. Resolves with a {@link SimResponse} for fake services and
   * injected statuses, with the handler's `Response` for msw handlers.
   * @param task - the calling kernel task, or undefined when unknown (patched global fetch)
   * @param actor - recorded as the request's actor
   */
  fetch(task: Task | undefined, actor: string, input: string | URL | Request, init?: RequestInit): Promise<SimResponse | Response>;
  /** Every settled request, in completion order. */
  readonly log: RequestRecord[];
  readonly services: readonly FakeRestService[];
}

/**
 * Creates the downstream of one run (SPEC §2.3): requests to fake services are served on a fast
 * path, others go through the msw handlers, anything else is an {@link UnhandledRequestError}.
 * Faults come from `host.decide`; latency and hangs run on the virtual clock.
 * @param host - the simulation (a `Kernel` works)
 * @param options - see {@link CreateDownstreamOptions}
 * @example
 * const dns = fakeRestService({ baseUrl: 'https://dns.example' });
 * const downstream = createDownstream(kernel, { services: [dns] });
 * const res = await downstream.fetch(task, 'dns-controller', 'https://dns.example/records', { method: 'POST', body: '{"name":"a"}' });
 * @public
 */
export function createDownstream(host: DownstreamHost, options: CreateDownstreamOptions = {}): Downstream {
  return new DownstreamImpl(host, resolveDownstreamOptions(options));
}

/** Validates and completes the options once. @internal */
export function resolveDownstreamOptions(options: CreateDownstreamOptions): ResolvedDownstreamOptions {
  const timeoutMs = options.timeoutMs ?? 30_000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new RangeError(`steadystate.createDownstream: timeoutMs must be a positive number of virtual ms, got ${String(timeoutMs)}.`);
  }
  const services = [...(options.services ?? [])];
  const seen = new Set<string>();
  for (const s of services) {
    if (seen.has(s.baseUrl)) throw new TypeError(`steadystate.createDownstream: two services share baseUrl ${s.baseUrl}; give each its own.`);
    seen.add(s.baseUrl);
  }
  const routing = [...services].sort((a, b) => b.baseUrl.length - a.baseUrl.length);
  return { services, routing, handlers: [...(options.handlers ?? [])], timeoutMs };
}

const PASS: FetchDecision = { type: 'pass' };

/** A rejection caused by the caller's AbortSignal, told apart from other errors. */
class Aborted {
  constructor(readonly reason: unknown) {}
}

/** Bookkeeping for one call. */
interface Call {
  task: Task | undefined;
  seq: number;
  t: number;
  actor: string;
  parts: RequestParts;
  init: RequestInit | undefined;
  input: string | URL | Request;
  endpoint: string;
  fault: string | undefined;
}

class DownstreamImpl implements Downstream {
  readonly log: RequestRecord[] = [];
  readonly services: readonly FakeRestService[];
  private seq = 0;

  constructor(
    private readonly host: DownstreamHost,
    private readonly options: ResolvedDownstreamOptions,
  ) {
    this.services = options.services;
  }

  async fetch(task: Task | undefined, actor: string, input: string | URL | Request, init?: RequestInit): Promise<SimResponse | Response> {
    const host = this.host;
    host.touch();
    const parts = requestParts(input as string | URL | RequestLike, init);
    const { url, method } = parts;
    let service: FakeRestService | undefined;
    let route: RestRoute | undefined;
    for (const s of this.options.routing) {
      route = s.route(url);
      if (route) {
        service = s;
        break;
      }
    }
    const call: Call = {
      task,
      seq: this.seq++,
      t: host.now(),
      actor,
      parts,
      init,
      input,
      endpoint: route ? `${method} ${route.endpointPath}` : endpointOf(method, url),
      fault: undefined,
    };
    if (parts.signal?.aborted) throw this.aborted(call, parts.signal.reason);
    if (!service && this.options.handlers.length === 0) throw this.unhandled(call);

    const decision = host.decide ? host.decide({ t: call.t, actor, method, url, endpoint: call.endpoint, seq: call.seq }) : PASS;
    if (decision.type !== 'pass') call.fault = decision.type;
    // A fault that answers in the service's place must not hide a missing handler.
    if (!service && (decision.type === 'status' || decision.type === 'reset' || decision.type === 'hang') && !(await this.anyHandlerMatches(call))) {
      throw this.unhandled(call);
    }
    switch (decision.type) {
      case 'status': {
        const headers: [string, string][] = [['content-type', 'application/json']];
        if (decision.retryAfterSeconds !== undefined) headers.push(['retry-after', String(decision.retryAfterSeconds)]);
        const text = JSON.stringify({ error: statusTextOf(decision.status) || `HTTP ${decision.status}` });
        this.record(call, decision.status, outcomeOf(decision.status), false, headers);
        return new SimResponse(decision.status, text, headers, url);
      }
      case 'reset':
        this.record(call, 0, 'reset', false);
        throw connectionResetError();
      case 'hang':
        return this.timeOut(call);
      case 'latency':
      case 'pass':
      case 'applied-but-lost':
        break;
    }
    // the fake service's own latency, plus an injected one: both before the service sees it
    const waitMs = (service ? service.options.latencyMs : 0) + (decision.type === 'latency' ? decision.ms : 0);
    if (waitMs > 0 || decision.type === 'latency') {
      if (waitMs >= this.options.timeoutMs) return this.timeOut(call);
      try {
        await this.wait(call, waitMs);
      } catch (e) {
        throw e instanceof Aborted ? this.aborted(call, e.reason) : e;
      }
    }
    const lost = decision.type === 'applied-but-lost';
    return service && route ? this.serveFake(call, service, route, lost) : this.serveHandlers(call, lost);
  }

  /** The fast path: plain strings in, a {@link SimResponse} out. */
  private async serveFake(call: Call, service: FakeRestService, route: RestRoute, lost: boolean): Promise<SimResponse> {
    const { parts, init } = call;
    const body = bodyTextOf(parts, init);
    const bodyText = typeof body === 'object' ? await body : body;
    const keyHeader = service.options.idempotencyKeyHeader;
    const key = keyHeader !== undefined && parts.method === 'POST' ? headerOf(parts, init, keyHeader) : undefined;
    const reply = service.handle(route, parts.method, bodyText, key);
    if (lost) {
      this.record(call, 0, 'reset', true);
      throw connectionResetError();
    }
    this.record(call, reply.status, outcomeOf(reply.status), true, reply.headers);
    return new SimResponse(reply.status, reply.text, reply.headers, parts.url);
  }

  /**
   * User msw handlers, run the way msw's `getResponse` runs them (in order, first response
   * wins), but calling `handler.run` directly: `getResponse` draws its request id from
   * `Math.random`, which a run must not touch.
   */
  private async serveHandlers(call: Call, lost: boolean): Promise<Response> {
    const request = this.buildRequest(call);
    let response: Response | undefined;
    try {
      for (const handler of this.options.handlers) {
        const result = await handler.run({ request, requestId: `steadystate-${call.seq}` });
        if (result?.response) {
          response = result.response;
          break;
        }
      }
    } catch (err) {
      if (err instanceof Response) response = err;
      else response = handlerException(err);
    }
    if (call.parts.signal?.aborted) throw this.aborted(call, call.parts.signal.reason);
    if (!response) throw this.unhandled(call);
    if (response.headers.get('x-msw-intention') === 'passthrough') {
      throw this.unhandled(call, 'an msw handler returned passthrough(), but no request may reach the real network');
    }
    if (response.type === 'error') {
      this.record(call, 0, 'reset', false);
      throw networkError();
    }
    if (lost) {
      this.record(call, 0, 'reset', true);
      throw connectionResetError();
    }
    this.record(call, response.status, outcomeOf(response.status), true, response.headers);
    return response;
  }

  private async anyHandlerMatches(call: Call): Promise<boolean> {
    const request = this.buildRequest(call);
    for (const handler of this.options.handlers) if (await handler.test({ request })) return true;
    return false;
  }

  private buildRequest(call: Call): Request {
    // Looked up at call time (not saved) so tests can observe construction.
    const WebRequest = globalThis.Request;
    return typeof call.input === 'string' || call.input instanceof URL
      ? new WebRequest(call.parts.url, call.init)
      : new WebRequest(call.input, call.init);
  }

  /** Waits for the client timeout on the virtual clock, then rejects with `TimeoutError`. */
  private async timeOut(call: Call): Promise<never> {
    try {
      await this.wait(call, this.options.timeoutMs);
    } catch (e) {
      throw e instanceof Aborted ? this.aborted(call, e.reason) : e;
    }
    this.record(call, 0, 'timeout', false);
    throw timeoutError(call.parts.method, call.parts.url, this.options.timeoutMs);
  }

  /**
   * Parks the task for `ms` virtual ms; rejects with {@link Aborted} when the signal fires. A
   * call without a task wakes its caller through `host.external`: no task of the kernel's
   * resumes, so nothing else would make the kernel let the caller's code (the rest of this call,
   * its record, the caller's reaction) run at this virtual time.
   */
  private wait(call: Call, ms: number): Promise<void> {
    const { host } = this;
    const signal = call.parts.signal;
    const wake = call.task === undefined ? host.external?.bind(host) : undefined;
    return host.park<void>(call.task, (resolve, reject) => {
      let onAbort: (() => void) | undefined;
      const handle = host.after(ms, () => {
        if (onAbort) signal?.removeEventListener('abort', onAbort);
        resolve();
        wake?.();
      });
      if (signal) {
        onAbort = () => {
          if (handle) handle.cancelled = true;
          reject(new Aborted(signal.reason));
          wake?.();
        };
        signal.addEventListener('abort', onAbort, { once: true });
      }
    });
  }

  private aborted(call: Call, reason: unknown): unknown {
    this.record(call, 0, 'aborted', false);
    return reason;
  }

  private unhandled(call: Call, detail?: string): UnhandledRequestError {
    this.record(call, 0, 'unhandled', false);
    const { method, url } = call.parts;
    this.host.onRefused?.({ via: call.task ? 'ctx.fetch' : 'globalThis.fetch', target: hostPortOf(url), method, url }, call.task);
    return new UnhandledRequestError(call.parts.method, call.parts.url, detail);
  }

  private record(call: Call, status: number, outcome: RequestOutcome, applied: boolean, headers?: HeaderPairs | Headers): void {
    const { method, url } = call.parts;
    const record: RequestRecord = {
      seq: call.seq,
      t: call.t,
      tEnd: this.host.now(),
      actor: call.actor,
      method,
      url,
      endpoint: call.endpoint,
      status,
      outcome,
      mutating: isMutating(method),
    };
    if (call.fault !== undefined) record.fault = call.fault;
    record.applied = applied;
    if (headers !== undefined) record.responseHeaders = plainHeaders(headers);
    this.log.push(record);
    this.host.touch();
    this.host.onRecord?.(record);
  }
}

/** Response headers as plain JSON, names lower-case (a repeated header joined with ", ", as `Headers.get` does). */
function plainHeaders(headers: HeaderPairs | Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Array.isArray(headers) ? (headers as HeaderPairs) : (headers as Headers).entries()) {
    const k = name.toLowerCase();
    out[k] = out[k] === undefined ? value : `${out[k]}, ${value}`;
  }
  return out;
}

function hostPortOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || (u.protocol === 'https:' ? '443' : '80')}`;
  } catch {
    return url;
  }
}

function outcomeOf(status: number): RequestOutcome {
  return status >= 400 ? 'http-error' : 'ok';
}

/** msw answers a throwing resolver with a 500 carrying the error, so the same happens here. */
function handlerException(err: unknown): Response {
  const e = err instanceof Error ? err : new Error(String(err));
  return Response.json({ name: e.name, message: `steadystate.downstream: msw handler threw: ${e.message}` }, { status: 500 });
}

export { installGlobalFetch } from './install-global-fetch.js';
