import type { Clock } from '../sim/clock.js';
import type { Client } from './client.js';
import type { SimFetch } from './env.js';

/**
 * What a reconcile returns (controller-runtime's `reconcile.Result`). Nothing means done;
 * `requeue` goes through the rate limiter; `requeueAfter` waits that many virtual ms.
 * Throwing is a failure: the key is retried with rate-limited backoff.
 * @public
 */
export type ReconcileResult = void | undefined | { requeue?: boolean; requeueAfter?: number };

/** Virtual clock plus a sleep that parks the reconcile on the simulation. @public */
export interface ReconcileClock extends Clock {
  sleep(ms: number): Promise<void>;
}

/** Structured logging into the trace. @public */
export interface ReconcileLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/**
 * What a reconcile receives: only the key of the primary object plus ways to look at the world.
 * @public
 */
export interface ReconcileContext {
  /** `namespace/name` (or `name` when cluster-scoped). */
  readonly key: string;
  readonly namespace: string | undefined;
  readonly name: string;
  /** Cached reads by default (`{ live: true }` for a live read); writes go to the store. */
  readonly client: Client;
  /** Downstream HTTP, intercepted by the simulation. */
  readonly fetch: SimFetch;
  readonly clock: ReconcileClock;
  readonly log: ReconcileLogger;
  /** Name of the controller running this reconcile. */
  readonly controller: string;
  /** Replica index (0 unless the scenario runs several replicas). */
  readonly replica: number;
}

/** A reconcile function. @public */
export type Reconciler = (ctx: ReconcileContext) => Promise<ReconcileResult> | ReconcileResult;
