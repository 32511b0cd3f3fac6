import type { EnvironmentActor, EnvironmentDecision } from '../harness/environment.js';
import type { World } from '../harness/world.js';
import type { Rng } from '../sim/rng.js';
import type { Json, JsonObject, NewObject, StoredObject } from '../store/object.js';
import type { LabelSelector } from '../store/selector.js';
import type { DeleteOptions } from '../store/store.js';
import { installActor } from './_internals/actor-loop.js';
import { resolveParams } from './_internals/params.js';

/** Options of {@link EnvironmentReader.list}. @public */
export interface EnvironmentListOptions {
  namespace?: string | undefined;
  labelSelector?: LabelSelector;
  /** Only objects whose controlling ownerReference points at this object (by uid). */
  ownedBy?: StoredObject;
}

/** Live reads of the store (the environment is the cluster: it never reads a stale cache). @public */
export interface EnvironmentReader {
  /** Virtual time (ms). */
  now(): number;
  /** Current object (an immutable snapshot: do not mutate) or undefined. */
  get(kind: string, key: string): StoredObject | undefined;
  /** Current objects of a kind (immutable snapshots), in store order. */
  list(kind: string, options?: EnvironmentListOptions): StoredObject[];
}

/**
 * What an actor's code may do: read the store live, write it as `environment:<name>`, ask the
 * environment seam whether a step may happen (faults answer), and record steps in the trace.
 * Writes never throw on a store error (a name taken, an object gone): they return undefined,
 * the failed write is recorded by the store, and the key is looked at again a second later.
 * Writes that would change nothing are skipped, so a level-triggered actor can write what it
 * wants on every sync without costing API writes.
 * @public
 */
export interface EnvironmentApi<P extends JsonObject> extends EnvironmentReader {
  /** `environment:<name>`: the actor recorded with every write. */
  readonly actor: string;
  readonly params: Readonly<P>;
  /** This actor's own random stream (forked from the scenario seed). */
  readonly rng: Rng;
  create(object: NewObject): StoredObject | undefined;
  /** JSON merge patch of spec and metadata. */
  patch(kind: string, key: string, patch: JsonObject): StoredObject | undefined;
  /** JSON merge patch of status (`{ status: { phase: 'Running' } }`), through the status subresource. */
  patchStatus(kind: string, key: string, patch: JsonObject): StoredObject | undefined;
  delete(kind: string, key: string, options?: DeleteOptions): boolean;
  /**
   * Asks whether `step` may happen to `object` now (environment faults decide; outside the fault
   * window always `proceed`). `instance` tells repetitions apart (a restart count).
   */
  decide(step: string, object: StoredObject, instance?: string | number): EnvironmentDecision;
  /** Records an `environment:step` trace entry. */
  record(step: string, fields?: Record<string, Json>): void;
  /** True inside the fault window (faults may act); false once the settle phase heals the world. */
  faultsActive(): boolean;
}

/** What one sync of one key receives. @public */
export interface EnvironmentSyncContext<P extends JsonObject> extends EnvironmentApi<P> {
  /** The loop's kind (`for`). */
  readonly kind: string;
  readonly key: string;
  readonly namespace: string | undefined;
  readonly name: string;
  /** The current object, or undefined when it does not exist (level-triggered: no event contents). */
  readonly object: StoredObject | undefined;
}

/** What `start` receives: the API plus a way to ask for a first sync. @public */
export interface EnvironmentStartContext<P extends JsonObject> extends EnvironmentApi<P> {
  /** Syncs `key` of loop `loop` (default the first) now, or `afterMs` virtual ms from now. */
  enqueue(key: string, afterMs?: number, loop?: number): void;
}

/** A sync's answer: nothing, or "look at this key again in `afterMs` virtual ms". @public */
export type EnvironmentSyncResult = void | undefined | { afterMs: number };

/** A custom mapping: objects of `kind` → keys of the loop's kind to sync. @public */
export interface EnvironmentWatch {
  kind: string;
  map: (object: StoredObject, read: EnvironmentReader) => string[];
}

/**
 * One reconcile loop of an actor: a level-triggered `sync(key)` over objects of kind `for`,
 * called when such an object, an owned object or a watched object changes, when a sync asked
 * for it (`{ afterMs }`), when a fault pokes the kind, and when faults stop.
 * @public
 */
export interface EnvironmentLoop<P extends JsonObject> {
  for: string;
  /** Kinds whose objects' controlling owner (of kind `for`) is synced when they change. @defaultValue [] */
  owns?: string[];
  /** @defaultValue [] */
  watches?: EnvironmentWatch[];
  sync: (ctx: EnvironmentSyncContext<P>) => EnvironmentSyncResult;
}

/**
 * Options of {@link defineEnvironmentActor}: a name, documented parameters with defaults, and
 * one loop (`for` + `sync`) or several (`loops`).
 * @public
 */
export interface EnvironmentActorOptions<P extends JsonObject> {
  /** Kebab-case; writes are recorded as `environment:<name>` and scenarios name it. */
  name: string;
  description: string;
  /** Every parameter with its default: a scenario may override any of them and no other. */
  defaults: P;
  /** Checks resolved parameters; returns why they are wrong, or undefined. */
  validate?: (params: P) => string | undefined;
  for?: string;
  owns?: string[];
  watches?: EnvironmentWatch[];
  sync?: (ctx: EnvironmentSyncContext<P>) => EnvironmentSyncResult;
  /** More loops (the Deployment actor runs the Deployment and the ReplicaSet loops). @defaultValue [] */
  loops?: EnvironmentLoop<P>[];
  /** Runs once when the actor is installed, before the controllers start. */
  start?: (ctx: EnvironmentStartContext<P>) => void;
}

/** An actor made by {@link defineEnvironmentActor}: an {@link EnvironmentActor} plus its defaults. @public */
export interface EnvironmentActorDefinition<P extends JsonObject> extends EnvironmentActor {
  readonly defaults: Readonly<P>;
  /** Kinds the actor drives (its loops' `for`). */
  readonly kinds: readonly string[];
  /** Resolves and validates parameters as `install` does (throws a ScenarioError naming the bad one). */
  resolve(params: JsonObject): P;
}

/**
 * Defines an environment actor (SPEC §2.2): a small simulated peer written like a controller
 * (a level-triggered sync per key) but run directly on the store, without informers, queues
 * or controller faults, because it plays the cluster itself (kwok-style). Its writes are
 * recorded as `environment:<name>`, so properties never blame the controller for them.
 * @example
 * ```ts
 * const certIssuer = defineEnvironmentActor({
 *   name: 'cert-issuer',
 *   description: 'issues a Certificate 2 s after it is created',
 *   defaults: { issueMs: 2000 },
 *   for: 'Certificate',
 *   sync(ctx) {
 *     const cert = ctx.object;
 *     if (!cert || cert.status['ready'] === true) return;
 *     const due = fromVirtualTimestamp(cert.metadata.creationTimestamp) + ctx.params.issueMs;
 *     if (ctx.now() < due) return { afterMs: due - ctx.now() };
 *     ctx.patchStatus('Certificate', ctx.key, { status: { ready: true } });
 *   },
 * });
 * ```
 * @public
 */
export function defineEnvironmentActor<P extends JsonObject>(options: EnvironmentActorOptions<P>): EnvironmentActorDefinition<P> {
  const where = 'steadystate.defineEnvironmentActor';
  if (options === null || typeof options !== 'object') throw new TypeError(`${where}: expected an options object, got ${String(options)}`);
  if (typeof options.name !== 'string' || !/^[a-z][a-z0-9-]*$/.test(options.name)) {
    throw new TypeError(`${where}: name must be kebab-case (it becomes the actor "environment:<name>"), got ${JSON.stringify(options.name)}`);
  }
  const at = `${where}({ name: "${options.name}" })`;
  if (options.defaults === null || typeof options.defaults !== 'object' || Array.isArray(options.defaults)) throw new TypeError(`${at}: defaults must be an object of parameters (use {} for none)`);
  const loops: EnvironmentLoop<P>[] = [];
  if (options.for !== undefined || options.sync !== undefined) {
    if (typeof options.for !== 'string' || options.for === '') throw new TypeError(`${at}: "for" must name the kind the actor drives, e.g. for: 'Pod'`);
    if (typeof options.sync !== 'function') throw new TypeError(`${at}: "sync" must be a function (ctx) => void | { afterMs }`);
    loops.push({ for: options.for, ...(options.owns ? { owns: options.owns } : {}), ...(options.watches ? { watches: options.watches } : {}), sync: options.sync });
  }
  for (const [i, l] of (options.loops ?? []).entries()) {
    if (typeof l.for !== 'string' || l.for === '' || typeof l.sync !== 'function') throw new TypeError(`${at}: loops[${i}] needs "for" (a kind) and "sync" (a function)`);
    loops.push(l);
  }
  if (loops.length === 0 && typeof options.start !== 'function') throw new TypeError(`${at}: give "for" and "sync" (or "loops", or "start"): an actor with nothing to run does nothing`);
  const defaults = Object.freeze({ ...options.defaults });
  const resolve = (params: JsonObject): P => resolveParams(options.name, defaults, params, options.validate);
  return Object.freeze({
    name: options.name,
    description: options.description,
    defaults,
    kinds: loops.map((l) => l.for),
    resolve,
    install: (world: World, params: JsonObject) => installActor(world, { name: options.name, params: resolve(params), loops, ...(options.start ? { start: options.start } : {}) }),
  });
}
