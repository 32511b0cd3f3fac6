import type { Task } from '../sim/kernel.js';
import { describeThrown } from '../sim/thrown.js';
import type { StoredObject } from '../store/object.js';
import { cloneJson, keyOf, parseKey } from '../store/object.js';
import { selectObjects, type ListOptions } from '../store/list-options.js';
import type { Client } from './client.js';
import { createControllerClient, CrashedError, downstreamCheckpoint, type ClientOwner } from './controller-client.js';
import type { ProcessHandle } from './controller-process.js';
import type { ControllerDefinition, WatchMapContext, WatchMapping } from './define-controller.js';
import type { FetchResponse, RuntimeEnv } from './env.js';
import { Informer, type InformerEvent } from './informer.js';
import { defaultRateLimiter } from './rate-limiter.js';
import type { ReconcileContext, ReconcileResult } from './reconcile.js';
import { checkReconcileResult } from './reconcile-result.js';
import { WorkQueue } from './workqueue.js';

/**
 * One running replica of a controller: its informers (its cache), its workqueue and its
 * workers. A crash throws all of it away; the manager starts a fresh instance.
 * @internal
 */
export class ControllerInstance implements ClientOwner {
  readonly name: string;
  readonly actor: string;
  alive = true;
  /** Workers may take keys (false while not leader). */
  active = true;
  /**
   * While above 0 the workers take no key, as when they are all busy elsewhere: keys wait in the
   * queue (deduplicated) and are reconciled from the cache as it is when the hold ends. Only a
   * benign variation of a fault-free run sets it (src/harness/twin.ts, `busy`); never a fault.
   */
  private holds = 0;
  callSeq = 0;
  /**
   * While another replica of this controller is active at the same time (set by the manager for
   * the second-replica fault): the virtual ms of each leg of an API round trip. Undefined: calls
   * take no time.
   */
  callLegMs: ((leg: 'request' | 'response') => number) | undefined;
  readonly queue: WorkQueue;
  private readonly informers = new Map<string, Informer>();
  private busy = 0;
  private pumpScheduled = false;
  readonly client: Client;
  private reconciles = 0;
  /** The running incarnation of a definition's own process, if it has one. */
  private process: ProcessHandle | undefined;
  private crashing = false;
  /**
   * Handler invocations waiting behind an async watch map (client-go's processorListener
   * buffer), with the time their event arrived; undefined while no async map runs, which keeps
   * the synchronous path free of allocations.
   */
  private handlerBacklog: { fn: (ev: InformerEvent) => void; ev: InformerEvent; at: number }[] | undefined;
  /** Arrival time of the event whose notifications are being made late (behind a slow handler). */
  private eventAt: number | undefined;
  /** The running async map: its task (started on its first sleep or when it returns a promise). */
  private handlerTask: Task | undefined;
  private handlerResolve: ((r: string[] | Promise<string[]>) => void) | undefined;
  private handlerKeys: readonly string[] | undefined;
  private handlerWatch: WatchMapping | undefined;
  private handlerEvent: InformerEvent | undefined;
  private handlerArrivedAt = 0;
  private handlerStartedAt = 0;
  private handlerCtxImpl: WatchMapContext | undefined;

  constructor(
    readonly env: RuntimeEnv,
    readonly def: ControllerDefinition,
    readonly replica: number,
    private readonly onCrash: (instance: ControllerInstance, reason: string, restartAfterMs: number | undefined) => void,
  ) {
    this.name = def.name;
    this.actor = `controller:${def.name}/${replica}`;
    this.queue = new WorkQueue(env.kernel, defaultRateLimiter(def.rateLimiter), () => this.pump());
    this.client = createControllerClient(env, this);
  }

  start(): void {
    const { trace, kernel } = this.env;
    trace.push({ t: kernel.now(), type: 'controller:start', controller: this.name, replica: this.replica });
    if (this.def.process) {
      this.process = this.def.process.start(this.env, this);
      return;
    }
    const primary = this.informer(this.def.for, true);
    primary.addHandler(this.serial((ev) => this.onPrimary(ev)));
    for (const kind of this.def.owns) {
      this.informer(kind, true).addHandler(this.serial((ev) => this.onOwned(kind, ev)));
    }
    for (const w of this.def.watches) {
      this.informer(w.kind, true).addHandler(this.serial((ev) => this.onWatch(w, ev)));
    }
    for (const inf of this.informers.values()) inf.start();
  }

  /** The informer for a kind, created (and started) on first use, like controller-runtime's cache. */
  informer(kind: string, deferStart = false): Informer {
    let inf = this.informers.get(kind);
    if (!inf) {
      const resync = kind === this.def.for || this.def.owns.includes(kind) || this.def.watches.some((w) => w.kind === kind) ? this.def.resyncPeriodMs : 0;
      inf = new Informer(this.env, { controller: this.name, replica: this.replica, kind, resyncPeriodMs: resync });
      this.informers.set(kind, inf);
      if (!deferStart) inf.start();
    }
    return inf;
  }

  /** Every informer of this instance (the settle phase relists them). */
  allInformers(): Informer[] {
    return [...this.informers.values()];
  }

  private onPrimary(ev: InformerEvent): void {
    // as in controller-runtime, resyncs are updates too, so GenerationChanged filters them
    if ((ev.type === 'MODIFIED' || ev.type === 'SYNC') && ev.old && this.def.predicates.includes('GenerationChanged')) {
      if (ev.old.metadata.generation === ev.object.metadata.generation) return;
    }
    this.notify(this.def.for, ev.key ?? keyOf(ev.object.metadata), ev.type);
  }

  private onOwned(kind: string, ev: InformerEvent): void {
    const owners = this.informer(this.def.for);
    const keys = ownerKeys(ev.object, this.def.for, owners);
    // the old version's owners, unless they are the same list in the same namespace (a status write shares it): the same keys
    const old = ev.old;
    if (old && !(old.metadata.ownerReferences === ev.object.metadata.ownerReferences && old.metadata.namespace === ev.object.metadata.namespace)) {
      for (const k of ownerKeys(old, this.def.for, owners)) if (!keys.includes(k)) keys.push(k);
    }
    for (const k of keys) this.notify(kind, k, ev.type);
  }

  /**
   * A handler run in order with this controller's other handlers: while an async watch map runs,
   * later events wait (the cache is already updated; only this controller's reaction is late).
   */
  private serial(fn: (ev: InformerEvent) => void): (ev: InformerEvent) => void {
    return (ev) => {
      if (this.handlerBacklog !== undefined) this.handlerBacklog.push({ fn, ev, at: this.env.kernel.now() });
      else fn(ev);
    };
  }

  private onWatch(w: WatchMapping, ev: InformerEvent): void {
    this.handlerWatch = w;
    this.handlerEvent = ev;
    this.handlerArrivedAt = this.eventAt ?? this.env.kernel.now();
    this.handlerStartedAt = this.env.kernel.now();
    let r: string[] | Promise<string[]>;
    try {
      // a copy: the cached object is the API server's own (shared to save copies); a map that
      // mutates what it is handed (an in-place sort, or forging) would change stored state with no
      // write (red team rt47 H-1). On a cluster it corrupts only this process's cache.
      r = w.map(cloneJson(ev.object), (this.handlerCtxImpl ??= { clock: new HandlerClock(this), list: (kind, options) => selectObjects(kind, this.informer(kind).values(), clusterWide(this.env.store, kind, options ?? {})).map((o) => cloneJson(o)) }));
    } catch (err) {
      // a map that started sleeping and then threw: its task ends with the error
      if (this.handlerResolve) {
        this.handlerResolve(Promise.reject(err));
        return;
      }
      // a map that threw at once: the event reaches no reconcile, the run guard names it
      this.handlerWatch = this.handlerEvent = undefined;
      this.env.trace.push({ t: this.env.kernel.now(), type: 'handler:end', controller: this.name, replica: this.replica, kind: w.kind, key: ev.key ?? keyOf(ev.object.metadata), event: ev.type, result: 'error', error: describeError(err), ms: 0 });
      return;
    }
    if (this.handlerTask === undefined && Array.isArray(r)) {
      this.handlerWatch = undefined;
      this.handlerEvent = undefined;
      for (const key of r) this.notify(w.kind, key, ev.type);
      return;
    }
    // the slow path: the map runs on as a task and this controller's later events queue behind it
    const { trace } = this.env;
    this.handlerBacklog ??= [];
    trace.push({ t: this.handlerStartedAt, type: 'handler:start', controller: this.name, replica: this.replica, kind: w.kind, key: ev.key ?? keyOf(ev.object.metadata), event: ev.type, eventAt: this.handlerArrivedAt });
    this.handlerTaskFor();
    this.handlerResolve!(r);
  }

  /** @internal Whether a watch map is running (synchronously now, or as a task). */
  mapRunning(): boolean {
    return this.handlerWatch !== undefined;
  }

  /** @internal The task of the running async map (started by its first sleep, or when it returns a promise). */
  handlerTaskFor(): Task {
    if (this.handlerTask) return this.handlerTask;
    let resolve!: (r: string[] | Promise<string[]>) => void;
    const result = new Promise<string[]>((res) => (resolve = res));
    this.handlerResolve = resolve;
    const label = `handler ${this.name}/${this.replica} ${this.handlerWatch?.kind ?? ''}`;
    this.handlerTask = this.env.kernel.spawn(
      label,
      async () => {
        this.handlerKeys = await result;
      },
      (error, failed) => this.endHandler(error, failed),
    );
    return this.handlerTask;
  }

  private endHandler(error: unknown, failed: boolean): void {
    const keys = this.handlerKeys;
    const w = this.handlerWatch!;
    const ev = this.handlerEvent!;
    const arrivedAt = this.handlerArrivedAt;
    this.handlerTask = undefined;
    this.handlerResolve = undefined;
    this.handlerKeys = undefined;
    this.handlerWatch = undefined;
    this.handlerEvent = undefined;
    if (!this.alive) return; // the backlog died with the process; the restart relists
    const { trace, kernel } = this.env;
    const ms = kernel.now() - this.handlerStartedAt;
    const key = ev.key ?? keyOf(ev.object.metadata);
    if (failed || !Array.isArray(keys)) {
      trace.push({ t: kernel.now(), type: 'handler:end', controller: this.name, replica: this.replica, kind: w.kind, key, event: ev.type, result: 'error', error: failed ? describeError(error) : `the map did not return a list of keys (it returned ${typeof keys === 'string' ? JSON.stringify(keys) : describeThrown(keys)})`, ms });
    } else {
      trace.push({ t: kernel.now(), type: 'handler:end', controller: this.name, replica: this.replica, kind: w.kind, key, event: ev.type, result: 'done', keys: keys.length, ms });
      this.eventAt = arrivedAt;
      for (const k of keys) this.notify(w.kind, k, ev.type);
      this.eventAt = undefined;
    }
    // replay what waited, in order, until another async map takes over
    const backlog = this.handlerBacklog ?? [];
    this.handlerBacklog = undefined;
    let i = 0;
    while (i < backlog.length && this.handlerBacklog === undefined && this.alive) {
      const item = backlog[i++]!;
      this.eventAt = item.at;
      try {
        item.fn(item.ev);
      } finally {
        this.eventAt = undefined;
      }
    }
    if (this.handlerBacklog !== undefined) this.handlerBacklog = backlog.slice(i);
  }

  /** One key about to be enqueued because of an event: the notification-loss seam. */
  notify(kind: string, key: string, event: InformerEvent['type']): void {
    if (!this.alive) return;
    const { seams, kernel, trace } = this.env;
    const seq = seams.notifySeq++;
    const d = seams.hasNotifyHooks ? seams.decideNotify({ t: kernel.now(), controller: this.name, replica: this.replica, kind, key, event, seq }) : 'deliver';
    // eventAt: when the event reached this controller, if its handlers held it back
    if (this.eventAt === undefined) trace.push({ t: kernel.now(), type: 'informer:notify', controller: this.name, replica: this.replica, kind, key, event, decision: d, seq });
    else trace.push({ t: kernel.now(), type: 'informer:notify', controller: this.name, replica: this.replica, kind, key, event, decision: d, seq, eventAt: this.eventAt });
    if (d === 'deliver') this.queue.add(key);
  }

  /** Enqueue without passing the notification seam (workload re-syncs, settle phase). */
  enqueue(key: string): void {
    if (this.alive) this.queue.add(key);
  }

  pump(): void {
    if (this.pumpScheduled || !this.alive || this.def.process) return;
    this.pumpScheduled = true;
    this.env.kernel.after(0, this.pumped);
  }

  /** What a pump schedules: one function per instance, not a closure per pump. */
  private readonly pumped = (): void => {
    this.pumpScheduled = false;
    this.dispatch();
  };

  private dispatch(): void {
    while (this.alive && this.active && this.holds === 0 && this.busy < this.def.maxConcurrentReconciles) {
      const key = this.queue.get();
      if (key === undefined) return;
      const until = this.keyHolds?.get(key);
      if (until !== undefined) {
        const now = this.env.kernel.now();
        if (until > now) {
          this.queue.done(key);
          this.queue.addAfter(key, until - now);
          continue;
        }
        this.keyHolds!.delete(key);
      }
      this.run(key);
    }
  }

  private lastKey: string | undefined;
  private lastLabel: string | undefined;
  private lastRef: { namespace?: string; name: string } | undefined;

  private run(key: string): void {
    const { kernel, trace } = this.env;
    this.busy++;
    const n = ++this.reconciles;
    const startedAt = kernel.now();
    trace.push({ t: startedAt, type: 'reconcile:start', controller: this.name, replica: this.replica, key, n });
    // the label and parsed key of the last key reconciled are kept: most reconciles are of the key before
    if (key !== this.lastKey) {
      this.lastKey = key;
      this.lastLabel = `reconcile ${this.name}/${this.replica} ${key}`;
      this.lastRef = parseKey(key);
    }
    const ref = this.lastRef!;
    const inst = this;
    kernel.spawn<ReconcileResult | undefined>(
      this.lastLabel!,
      // the reconcile's own promise is the task's (no async wrapper per reconcile); a sync
      // reconcile's value or throw becomes a settled promise
      (task) => {
        try {
          return Promise.resolve(inst.def.reconcile(makeContext(inst, task, key, ref)));
        } catch (err) {
          return Promise.reject(err);
        }
      },
      (error, failed, result) => this.finish(key, n, startedAt, error, failed, result),
    );
  }

  private finish(key: string, n: number, startedAt: number, error: unknown, failed: boolean, result: ReconcileResult | undefined): void {
    const { kernel, trace } = this.env;
    if (!this.alive || error instanceof CrashedError) return;
    this.busy--;
    let outcome: string;
    const checked = failed ? undefined : checkReconcileResult(result);
    if (checked === undefined || !checked.ok) {
      const d = this.queue.addRateLimited(key);
      outcome = 'error';
      // an unusable result fails the reconcile (retried with backoff); the run guard names it
      const t = kernel.now();
      trace.push(
        checked !== undefined
          ? { t, type: 'reconcile:end', controller: this.name, replica: this.replica, key, n, result: outcome, error: `InvalidResult: the reconcile ${checked.problem}`, invalid: true, retryInMs: d, ms: t - startedAt }
          : { t, type: 'reconcile:end', controller: this.name, replica: this.replica, key, n, result: outcome, error: describeError(error), retryInMs: d, ms: t - startedAt },
      );
    } else if (checked.requeueAfter > 0) {
      const c = checked;
      this.queue.forget(key);
      this.queue.addAfter(key, c.requeueAfter);
      outcome = 'requeueAfter';
      // two literals, not a conditional spread: this is the entry of every requeueAfter reconcile
      const t = kernel.now();
      trace.push(
        c.clampedFrom !== undefined
          ? { t, type: 'reconcile:end', controller: this.name, replica: this.replica, key, n, result: outcome, requeueAfter: c.requeueAfter, clampedFrom: c.clampedFrom, ms: t - startedAt }
          : { t, type: 'reconcile:end', controller: this.name, replica: this.replica, key, n, result: outcome, requeueAfter: c.requeueAfter, ms: t - startedAt },
      );
    } else if (checked.requeue) {
      const d = this.queue.addRateLimited(key);
      outcome = 'requeue';
      trace.push({ t: kernel.now(), type: 'reconcile:end', controller: this.name, replica: this.replica, key, n, result: outcome, retryInMs: d, ms: kernel.now() - startedAt });
    } else {
      this.queue.forget(key);
      trace.push({ t: kernel.now(), type: 'reconcile:end', controller: this.name, replica: this.replica, key, n, result: 'done', ms: kernel.now() - startedAt });
    }
    this.queue.done(key);
    if (this.queue.length > 0) this.pump();
  }

  crash(reason: string, restartAfterMs?: number): void {
    if (!this.alive) return;
    this.alive = false;
    this.env.trace.push({ t: this.env.kernel.now(), type: 'controller:crash', controller: this.name, replica: this.replica, reason });
    this.crashing = true;
    this.shutdown();
    this.crashing = false;
    this.onCrash(this, reason, restartAfterMs);
  }

  /** Stops informers and the queue (crash, or end of run). */
  shutdown(): void {
    this.alive = false;
    this.handlerBacklog = undefined;
    for (const inf of this.informers.values()) inf.stop();
    this.queue.shutdown();
    this.process?.stop(this.crashing ? 'crash' : 'shutdown');
  }

  /**
   * Relists every informer (and the process's caches): the settle phase. It repairs the caches
   * and delivers differences; unchanged keys are not re-enqueued (see Informer.relist).
   */
  relist(): void {
    for (const inf of this.informers.values()) inf.relist(false);
    this.process?.relist();
  }

  /** The watches of `kind` fell behind: its informers (or the process's watches) relist. */
  catchUp(kind: string): void {
    for (const inf of this.informers.values()) if (inf.kind === kind) inf.relist();
    this.process?.expireWatches?.(kind);
  }

  /** Keys held alone, until when (a benign variation: one key waits while the others go on). */
  private keyHolds: Map<string, number> | undefined;

  /**
   * @internal Holds `key` alone until `until` (virtual ms): it is taken only then, the other keys go
   * on. Holds of one key combine (the latest end wins): a window nested in a longer one, installed
   * later, does not cut the longer one short.
   */
  holdKey(key: string, until: number): void {
    const holds = (this.keyHolds ??= new Map());
    holds.set(key, Math.max(until, holds.get(key) ?? until));
  }

  /** Holds the workers (`true`) or lets them go again (`false`); holds nest. */
  hold(on: boolean): void {
    this.holds = Math.max(0, this.holds + (on ? 1 : -1));
    this.process?.hold?.(on);
    if (this.holds === 0) this.pump();
  }

  /** Whether one of this instance's informers watches `kind` (its decisions may read it). */
  watches(kind: string): boolean {
    return this.informers.has(kind);
  }

  setActive(active: boolean): void {
    this.active = active;
    if (active) this.pump();
  }

  get reconcileCount(): number {
    return this.reconciles;
  }

  /** Whether {@link memory} made this incarnation's state yet (a factory that throws leaves it unmade). */
  private memoryMade = false;
  private memoryValue: unknown;

  /**
   * This incarnation's in-memory state (`ctx.state`), made by the definition's `state` factory on
   * first use. A restart is a new instance, so a crash loses it, as a process restart does.
   */
  memory(): unknown {
    if (!this.memoryMade) {
      this.memoryValue = this.def.state?.();
      this.memoryMade = true;
    }
    return this.memoryValue;
  }
}

/**
 * Keys of the controlling owners of kind `ownerKind` (controller-runtime's EnqueueRequestForOwner):
 * in the child's namespace, or without one when the owner is cluster-scoped (a namespaced child of
 * a cluster-scoped parent), which `owners` (the primary kind's cache) tells.
 */
function ownerKeys(obj: StoredObject, ownerKind: string, owners: Informer): string[] {
  // built as literals: the usual answer is one key, and a list grown by push from [] reserves 16 slots
  let out: string[] | undefined;
  for (const r of obj.metadata.ownerReferences) {
    if (!r.controller || r.kind !== ownerKind) continue;
    // keyOf's answer without its argument object (one per owner reference per event)
    const namespaced = obj.metadata.namespace ? `${obj.metadata.namespace}/${r.name}` : r.name;
    const key = obj.metadata.namespace !== undefined && owners.get(namespaced) === undefined && owners.get(r.name)?.metadata.uid === r.uid ? r.name : namespaced;
    if (out === undefined) out = [key];
    else out.push(key);
  }
  return out ?? [];
}

function describeError(err: unknown): string {
  return describeThrown(err);
}

function noFetch(): Promise<FetchResponse> {
  return Promise.reject(
    new Error('steadystate: ctx.fetch was called but this scenario has no downstream services; pass `downstream` (fake services or msw handlers) to simulate/check'),
  );
}

/** ctx.clock of one reconcile (a class, not closures: one reconcile allocates little). */
class TaskClock {
  // JS-private: the code under test gets this object, and TypeScript's `private` is no barrier to it
  readonly #inst: ControllerInstance;
  readonly #task: Task;
  constructor(inst: ControllerInstance, task: Task) {
    this.#inst = inst;
    this.#task = task;
  }
  now(): number {
    return this.#inst.env.kernel.now();
  }
  sleep(ms: number): Promise<void> {
    if (!this.#inst.alive) return Promise.reject(new CrashedError(this.#inst.name));
    return this.#inst.env.kernel.sleep(this.#task, ms);
  }
}

/** ctx.clock of a watch map: sleeps park the running async map's task. */
class HandlerClock {
  readonly #inst: ControllerInstance;
  constructor(inst: ControllerInstance) {
    this.#inst = inst;
  }
  now(): number {
    return this.#inst.env.kernel.now();
  }
  sleep(ms: number): Promise<void> {
    if (!this.#inst.alive) return Promise.reject(new CrashedError(this.#inst.name));
    // a map is running only inside onWatch or its task; a sleep from anywhere else parks no task
    return this.#inst.env.kernel.sleep(this.#inst.mapRunning() ? this.#inst.handlerTaskFor() : undefined, ms);
  }
}

/** ctx.log: structured entries in the trace. */
class TraceLogger {
  readonly #inst: ControllerInstance;
  constructor(inst: ControllerInstance) {
    this.#inst = inst;
  }
  info(message: string, fields?: Record<string, unknown>): void {
    this.#write('info', message, fields);
  }
  error(message: string, fields?: Record<string, unknown>): void {
    this.#write('error', message, fields);
  }
  #write(level: string, message: string, fields: Record<string, unknown> | undefined): void {
    const { trace, kernel } = this.#inst.env;
    trace.push({ t: kernel.now(), type: 'log', actor: this.#inst.actor, level, message, ...(fields ? { fields } : {}) });
  }
}

class Context implements ReconcileContext {
  readonly namespace: string | undefined;
  readonly name: string;
  readonly client: Client;
  readonly controller: string;
  readonly replica: number;
  // JS-private: a reconcile that reached the instance would reach the store, the trace and the
  // fault seams, and could change the world without a write (red team, stop 40)
  #clockImpl: TaskClock | undefined;
  #logImpl: TraceLogger | undefined;
  readonly #inst: ControllerInstance;
  readonly #task: Task;
  constructor(
    inst: ControllerInstance,
    task: Task,
    readonly key: string,
    ref: { namespace?: string; name: string },
  ) {
    this.#inst = inst;
    this.#task = task;
    this.namespace = ref.namespace;
    this.name = ref.name;
    // while another replica is active too, each reconcile's calls are round trips of its own task
    this.client = inst.callLegMs === undefined ? inst.client : createControllerClient(inst.env, inst, task);
    this.controller = inst.name;
    this.replica = inst.replica;
  }
  get clock(): TaskClock {
    return (this.#clockImpl ??= new TaskClock(this.#inst, this.#task));
  }
  get log(): TraceLogger {
    return (this.#logImpl ??= new TraceLogger(this.#inst));
  }
  get state(): unknown {
    return this.#inst.memory();
  }
  get fetch(): ReconcileContext['fetch'] {
    const impl = this.#inst.env.fetch;
    if (!impl) return noFetch;
    const inst = this.#inst;
    const task = this.#task;
    if (!inst.env.seams.hasCallHooks) return (input, init) => (inst.alive ? impl(task, inst.actor, input, init) : Promise.reject(new CrashedError(inst.name)));
    // a crash fault may act right before and right after each downstream request
    return async (input, init) => {
      const method = (init?.method ?? (typeof input === 'object' && 'method' in input ? input.method : 'GET')).toUpperCase();
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      const n = downstreamCheckpoint(inst.env, inst, 'before', method, url);
      let res: FetchResponse;
      try {
        res = await impl(task, inst.actor, input, init);
      } catch (err) {
        downstreamCheckpoint(inst.env, inst, 'after', method, url, n);
        throw err;
      }
      downstreamCheckpoint(inst.env, inst, 'after', method, url, n);
      return res;
    };
  }
}

function makeContext(inst: ControllerInstance, task: Task, key: string, ref: { namespace?: string; name: string }): ReconcileContext {
  return new Context(inst, task, key, ref);
}

/** A cluster-scoped kind listed "in a namespace" is listed whole, as the store's live list is. */
function clusterWide(store: { namespaced(kind: string): boolean | undefined }, kind: string, options: ListOptions): ListOptions {
  return options.namespace && store.namespaced(kind) === false ? { ...options, namespace: undefined } : options;
}
