/**
 * The downstream fault seam: before each request the host is asked for a decision from this
 * closed set (turmoil's rule: injection points return a decision, they do not run arbitrary
 * code). The flaky-downstream fault (SPEC §3) is built from these.
 */

/**
 * What to do with one downstream request.
 * - `pass`: serve it normally.
 * - `status`: answer with this status (and `Retry-After`, when given) without reaching the
 *   service: 5xx, 429.
 * - `latency`: wait `ms` of virtual time, then serve it. A latency at or beyond the client
 *   timeout behaves like `hang`.
 * - `hang`: never answer; the caller gets a `TimeoutError` after the client timeout.
 * - `reset`: fail like a dropped connection (`TypeError: fetch failed`, cause `ECONNRESET`)
 *   without reaching the service.
 * - `applied-but-lost`: the service processes the request, then the response is lost and the
 *   caller sees a connection reset: the case idempotency keys exist for.
 * @public
 */
export type FetchDecision =
  | { type: 'pass' }
  | { type: 'status'; status: number; retryAfterSeconds?: number }
  | { type: 'latency'; ms: number }
  | { type: 'hang' }
  | { type: 'reset' }
  | { type: 'applied-but-lost' };

/**
 * What a decision function knows about the request it decides on.
 * @public
 */
export interface FetchInfo {
  /** Virtual time (ms) of the call. */
  t: number;
  actor: string;
  /** Upper-case HTTP method. */
  method: string;
  url: string;
  /** Normalised endpoint, see `RequestRecord.endpoint`. */
  endpoint: string;
  /** Global request index of the run, 0-based. */
  seq: number;
}
