/**
 * What the downstream layer records about every `fetch` a reconciler makes (SPEC §2.3). The
 * bounded-QPS, idempotence and no-duplicate-side-effects properties judge these records, so
 * each one is plain JSON and fully determined by the run.
 */

/**
 * How a request ended, as the caller saw it.
 * - `ok`: a response with status < 400.
 * - `http-error`: a response with status ≥ 400 (injected or from the service).
 * - `reset`: the promise rejected with a network error (`TypeError: fetch failed`).
 * - `timeout`: the request hung until the client timeout (`TimeoutError`).
 * - `unhandled`: no fake service or msw handler matched; the request is a test-setup error.
 * - `aborted`: the caller's `AbortSignal` fired first.
 * @public
 */
export type RequestOutcome = 'ok' | 'http-error' | 'reset' | 'timeout' | 'unhandled' | 'aborted';

/**
 * One recorded downstream request. Records are appended to the log when the request settles,
 * so the log is in completion order; sort by `seq` (or `t`) for start order.
 * @public
 */
export interface RequestRecord {
  /** Global request index of the run, 0-based, in the order `fetch` was called. */
  seq: number;
  /** Virtual time (ms) at which `fetch` was called. */
  t: number;
  /** Virtual time (ms) at which the caller got its response or error. */
  tEnd: number;
  /** Who made the call, e.g. `'dns-controller/0'`. */
  actor: string;
  /** Upper-case HTTP method. */
  method: string;
  /** The absolute URL as requested (query included). */
  url: string;
  /**
   * Method + origin + path with ids normalised (`'GET https://dns.example/records/:id'`), so
   * per-endpoint rates can be computed without the ids of individual resources.
   */
  endpoint: string;
  /** Response status, or 0 when the caller got no response. */
  status: number;
  outcome: RequestOutcome;
  /** True for every method except GET, HEAD and OPTIONS. */
  mutating: boolean;
  /** Name of the injected fault decision (`'status'`, `'latency'`, `'hang'`, …), if any. */
  fault?: string;
  /** Whether the request reached the service (false when a fault answered in its place). */
  applied?: boolean;
  /**
   * The headers of the response the caller got (names lower-case; absent when it got none), e.g.
   * `location`, `retry-after`, or the fake service's `idempotent-replayed: 'true'` on a POST
   * answered from its idempotency-key cache.
   */
  responseHeaders?: Record<string, string>;
}

/**
 * Whether a request with this method may change server state.
 * @param method - an upper-case HTTP method
 * @internal
 */
export function isMutating(method: string): boolean {
  return method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS';
}
