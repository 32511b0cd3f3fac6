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
 * What a reconcile receives: only the key of the primary object plus ways to look at the world,
 * and this replica's in-memory state (`S`, from the `state` option of `defineController`).
 * @public
 */
export interface ReconcileContext<S = unknown> {
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
  /**
   * This replica's in-memory state (an expectations cache, a "last seen" map): what
   * `defineController`'s `state` option made for the running incarnation, shared by its reconciles.
   * Like a process's memory, it is new in every run and lost when the replica crashes; undefined
   * when the controller declares no `state`.
   */
  readonly state: S;
}

/** A reconcile function. @public */
export type Reconciler<S = unknown> = (ctx: ReconcileContext<S>) => Promise<ReconcileResult> | ReconcileResult;
