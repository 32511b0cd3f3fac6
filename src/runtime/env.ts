import type { Kernel, Task } from '../sim/kernel.js';
import type { Trace } from '../sim/trace.js';
import type { ObjectStore } from '../store/store.js';
import type { Seams } from './seams.js';

/** The downstream `fetch` a reconcile reaches through `ctx.fetch`. @public */
export type SimFetch = (input: string | URL | Request, init?: RequestInit) => Promise<FetchResponse>;

/** The subset of the web `Response` reconcilers use; real Responses satisfy it too. @public */
export interface FetchResponse {
  readonly status: number;
  readonly ok: boolean;
  readonly statusText: string;
  readonly url: string;
  readonly headers: { get(name: string): string | null };
  json(): Promise<unknown>;
  text(): Promise<string>;
}

/** What the controller runtime needs from the world it runs in. @internal */
export interface RuntimeEnv {
  kernel: Kernel;
  store: ObjectStore;
  seams: Seams;
  trace: Trace;
  /** Routes `ctx.fetch`; absent when the scenario has no downstream. */
  fetch?: (task: Task | undefined, actor: string, input: string | URL | Request, init?: RequestInit) => Promise<FetchResponse>;
  /** Virtual ms between a store write and its watch event reaching an informer. */
  watchLatencyMs: number;
  /** Virtual ms before an informer re-watches after a disconnect. */
  rewatchDelayMs: number;
  /** Record every read in the trace (off in the fast path of big experiments). */
  traceReads: boolean;
}
