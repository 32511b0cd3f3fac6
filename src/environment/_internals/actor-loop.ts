import { environmentSeams, type EnvironmentDecision } from '../../harness/environment.js';
import { ScenarioError } from '../../harness/simulate.js';
import type { World } from '../../harness/world.js';
import type { ScheduledEvent } from '../../sim/scheduler.js';
import { thrownMessage } from '../../sim/thrown.js';
import { isStoreError } from '../../store/errors.js';
import { applyMergePatch } from '../../store/merge-patch.js';
import { contentOf, jsonEqual, keyOf, parseKey, type Json, type JsonObject, type NewObject, type StoredObject } from '../../store/object.js';
import { matchesSelector, parseSelector } from '../../store/selector.js';
import type { DeleteOptions, Watch, WatchEvent } from '../../store/store.js';
import type { EnvironmentApi, EnvironmentListOptions, EnvironmentLoop, EnvironmentReader, EnvironmentStartContext, EnvironmentSyncContext, EnvironmentSyncResult } from '../define-environment-actor.js';

/** How soon a key whose sync hit a store error is looked at again (virtual ms). */
const RETRY_MS = 1000;
/** Syncs of one key at one virtual instant before the actor is declared to be looping. */
const MAX_SYNCS_PER_INSTANT = 200;

/** What `installActor` needs. @internal */
export interface ActorSpec<P extends JsonObject> {
  name: string;
  params: P;
  loops: readonly EnvironmentLoop<P>[];
  start?: (ctx: EnvironmentStartContext<P>) => void;
}

const installed = new WeakMap<World, Set<string>>();

/**
 * Runs an actor's loops on a world: watches the store directly (the environment is the
 * cluster, so controller faults never touch what it sees), keeps a dirty set per loop
 * processed in insertion order at the current virtual instant, one timer per key, and
 * re-syncs everything when faults stop or a fault pokes a kind. Returns the uninstall function.
 * @internal
 */
export function installActor<P extends JsonObject>(world: World, spec: ActorSpec<P>): () => void {
  let names = installed.get(world);
  if (!names) installed.set(world, (names = new Set()));
  if (names.has(spec.name)) {
    throw new ScenarioError(`steadystate.environment(${spec.name}): this actor is installed twice in one run (listed twice, or also through a bundle such as "cluster"). List it once in scenario.environment.`);
  }
  names.add(spec.name);

  const { kernel, store, trace } = world;
  const seams = environmentSeams(world);
  const actor = `environment:${spec.name}`;
  const rng = world.rng.fork(actor);
  let stopped = false;

  const reader: EnvironmentReader = {
    now: () => kernel.now(),
    get: (kind, key) => store.peek(kind, key),
    list: (kind, options) => list(kind, options),
  };

  function list(kind: string, options: EnvironmentListOptions = {}): StoredObject[] {
    const reqs = options.labelSelector !== undefined ? parseSelector(options.labelSelector) : [];
    const owner = options.ownedBy?.metadata.uid;
    const out: StoredObject[] = [];
    for (const o of store.peekAll(kind)) {
      if (options.namespace !== undefined && o.metadata.namespace !== options.namespace) continue;
      if (owner !== undefined && !o.metadata.ownerReferences.some((r) => r.uid === owner && r.controller === true)) continue;
      if (reqs.length > 0 && !matchesSelector(reqs, o.metadata.labels)) continue;
      out.push(o);
    }
    return out;
  }

  // set while a sync runs: a failed write makes the engine look at the key again soon
  let writeFailed = false;
  // the running sync's cause, recorded before its first write (an `environment:sync` entry): which
  // writes' events started it, or that its own timer, the settle or a fault did. Judges follow it
  // (scheduled.ts): the environment moves on its own, or only because a controller wrote
  let cause: { kind: string; key: string; events: number[]; external: boolean } | undefined;
  function attempt<R>(fn: () => R): R | undefined {
    if (cause !== undefined) {
      trace.push({ t: kernel.now(), type: 'environment:sync', actor, kind: cause.kind, key: cause.key, events: cause.events, ...(cause.external ? { external: true } : {}) });
      cause = undefined;
    }
    try {
      return fn();
    } catch (err) {
      if (!isStoreError(err)) throw err;
      writeFailed = true;
      return undefined;
    }
  }

  const api: EnvironmentApi<P> = {
    ...reader,
    actor,
    params: spec.params,
    rng,
    create: (object: NewObject) => attempt(() => store.create(actor, object)),
    patch(kind, key, patch) {
      const cur = store.peek(kind, key);
      if (cur) {
        const next = applyMergePatch(cur as unknown as Json, patch) as unknown as StoredObject;
        // the content is every top-level field but status (spec, ConfigMap data, …)
        if (jsonEqual(contentOf(next), contentOf(cur)) && jsonEqual(next.metadata, cur.metadata)) return cur;
      }
      return attempt(() => store.patch(actor, kind, parseKey(key), patch));
    },
    patchStatus(kind, key, patch) {
      const cur = store.peek(kind, key);
      if (cur) {
        const next = applyMergePatch(cur as unknown as Json, patch) as unknown as StoredObject;
        if (jsonEqual(next.status, cur.status)) return cur;
      }
      return attempt(() => store.patch(actor, kind, parseKey(key), patch, { subresource: 'status' }));
    },
    delete: (kind: string, key: string, options?: DeleteOptions) => attempt(() => (store.delete(actor, kind, parseKey(key), options), true)) ?? false,
    decide(step, object, instance = ''): EnvironmentDecision {
      const d = seams.decide({ actor: spec.name, step, kind: object.kind, key: keyOf(object.metadata), object, instance: String(instance) });
      if (d.type !== 'proceed') trace.push({ t: kernel.now(), type: 'environment:step', actor, step, kind: object.kind, key: keyOf(object.metadata), decision: d.type, ...(d.type === 'delay' ? { ms: d.ms } : {}), ...(d.type === 'fail' ? { reason: d.reason } : {}) });
      return d;
    },
    record(step, fields) {
      trace.push({ t: kernel.now(), type: 'environment:step', actor, step, ...(fields ?? {}) });
    },
    faultsActive: () => seams.active,
  };

  const host: LoopHost<P> = {
    world,
    spec,
    reader,
    api,
    isStopped: () => stopped,
    causedBy: (c) => {
      cause = c;
    },
    takeWriteFailed: () => {
      const f = writeFailed;
      writeFailed = false;
      return f;
    },
  };
  const loops = spec.loops.map((l) => new Loop(host, l));
  const watches: Watch[] = [];
  const unregister: (() => void)[] = [];

  // one store watch per kind, dispatching to every loop interested in it
  const kinds = new Set<string>();
  for (const l of spec.loops) {
    kinds.add(l.for);
    for (const k of l.owns ?? []) kinds.add(k);
    for (const w of l.watches ?? []) kinds.add(w.kind);
  }
  for (const kind of kinds) {
    watches.push(store.watch(kind, undefined, (ev) => {
      if (stopped || ev.type === 'BOOKMARK') return;
      for (const l of loops) l.onEvent(kind, ev);
    }));
  }
  const onSettle = () => {
    for (const l of loops) l.markAll();
  };
  world.onSettle.push(onSettle);
  unregister.push(() => {
    const i = world.onSettle.indexOf(onSettle);
    if (i >= 0) world.onSettle.splice(i, 1);
  });
  unregister.push(seams.onPoke((kind) => {
    for (const l of loops) if (l.def.for === kind) l.markAll();
  }));

  trace.push({ t: kernel.now(), type: 'environment:step', actor, step: 'actor:start', params: spec.params });
  for (const l of loops) for (const o of store.peekAll(l.def.for)) l.dirty.add(keyOf(o.metadata));
  // writes at the start are the environment's own (a lease holder winning its lease)
  cause = { kind: '', key: '', events: [], external: true };
  spec.start?.({
    ...api,
    enqueue(key, afterMs = 0, loop = 0) {
      const l = loops[loop];
      if (!l) throw new Error(`steadystate.environment(${spec.name}): enqueue(…, loop ${loop}): the actor has ${loops.length} loop(s)`);
      if (afterMs > 0) l.timer(key, afterMs);
      else l.dirty.add(key);
    },
  });
  cause = undefined;
  // the first syncs run at install, before the controllers start (a lease holder wins its lease)
  for (const l of loops) l.pump();

  return () => {
    stopped = true;
    for (const w of watches) w.stop();
    for (const u of unregister) u();
    for (const l of loops) l.stop();
    names.delete(spec.name);
  };
}

/** What a loop shares with its actor. */
interface LoopHost<P extends JsonObject> {
  world: World;
  spec: ActorSpec<P>;
  reader: EnvironmentReader;
  api: EnvironmentApi<P>;
  isStopped(): boolean;
  /** Sets the cause the next write records (see `installActor`), or clears it once the sync is over. */
  causedBy(c: { kind: string; key: string; events: number[]; external: boolean } | undefined): void;
  /** Whether a write failed since the last call (and resets the flag). */
  takeWriteFailed(): boolean;
}

/** One loop of an actor: dirty keys processed in insertion order, one timer per key, level-triggered syncs. */
class Loop<P extends JsonObject> {
  readonly dirty = new Set<string>();
  /** Per dirty key, why: the resourceVersions of the events that marked it; absent or external: a timer, the settle, a fault, the start. */
  private readonly causes = new Map<string, { events: number[]; external: boolean }>();
  private readonly timers = new Map<string, ScheduledEvent>();
  private pumpScheduled = false;
  private instant = -1;
  private readonly syncsNow = new Map<string, number>();

  constructor(
    private readonly host: LoopHost<P>,
    readonly def: EnvironmentLoop<P>,
  ) {}

  onEvent(kind: string, ev: WatchEvent): void {
    const obj = ev.object;
    if (kind === this.def.for) this.mark(keyOf(obj.metadata), ev.rv);
    if (this.def.owns?.includes(kind)) {
      for (const r of obj.metadata.ownerReferences) {
        if (r.controller === true && r.kind === this.def.for) this.mark(keyOf({ namespace: obj.metadata.namespace, name: r.name }), ev.rv);
      }
    }
    for (const w of this.def.watches ?? []) if (w.kind === kind) for (const k of w.map(obj, this.host.reader)) this.mark(k, ev.rv);
  }

  /** Marks a key dirty (`rv`: the write whose event did; none: a timer, the settle, a fault); the loop runs at the current virtual instant, after the write that caused it. */
  mark(key: string, rv?: number): void {
    if (this.host.isStopped()) return;
    const c = this.causes.get(key);
    if (c === undefined) this.causes.set(key, rv === undefined ? { events: [], external: true } : { events: [rv], external: false });
    else if (rv === undefined) c.external = true;
    else if (!c.events.includes(rv)) c.events.push(rv);
    this.dirty.add(key);
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    this.host.world.kernel.after(0, () => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  markAll(): void {
    for (const o of this.host.world.store.peekAll(this.def.for)) this.mark(keyOf(o.metadata));
    for (const key of [...this.timers.keys()]) this.mark(key);
  }

  /**
   * Syncs `key` again in `afterMs`. `cause`: why the sync that set the timer ran, which the timer's
   * sync inherits: a Pod Ready a second after it started answers whatever made it (a ReplicaSet
   * scaled up by a controller's write), not a clock of its own (judges follow it: scheduled.ts).
   * None (the actor's start): external.
   */
  timer(key: string, afterMs: number, cause?: { events: number[]; external: boolean }): void {
    const old = this.timers.get(key);
    if (old) old.cancelled = true;
    this.timers.set(
      key,
      this.host.world.kernel.after(afterMs, () => {
        this.timers.delete(key);
        if (cause === undefined || cause.external) this.mark(key);
        else for (const rv of cause.events) this.mark(key, rv);
      }),
    );
  }

  pump(): void {
    while (!this.host.isStopped() && this.dirty.size > 0) {
      const key = this.dirty.values().next().value as string;
      this.dirty.delete(key);
      this.sync(key);
    }
  }

  private sync(key: string): void {
    const { world, spec, api } = this.host;
    const now = world.kernel.now();
    if (now !== this.instant) {
      this.instant = now;
      this.syncsNow.clear();
    }
    const n = (this.syncsNow.get(key) ?? 0) + 1;
    this.syncsNow.set(key, n);
    if (n > MAX_SYNCS_PER_INSTANT) {
      throw new Error(
        `steadystate.environment(${spec.name}): ${this.def.for} ${key} was synced ${MAX_SYNCS_PER_INSTANT} times at t=${now} ms without virtual time passing: its sync writes something that triggers it again every time. Write only what differs (ctx.patch and ctx.patchStatus skip no-op writes) or return { afterMs } to wait.`,
      );
    }
    const old = this.timers.get(key);
    if (old) {
      old.cancelled = true;
      this.timers.delete(key);
    }
    const c = this.causes.get(key);
    this.causes.delete(key);
    this.host.causedBy({ kind: this.def.for, key, events: c?.events ?? [], external: c === undefined || c.external });
    const ref = parseKey(key);
    const ctx: EnvironmentSyncContext<P> = { ...api, kind: this.def.for, key, namespace: ref.namespace, name: ref.name, object: world.store.peek(this.def.for, key) };
    this.host.takeWriteFailed();
    let r: EnvironmentSyncResult;
    try {
      r = this.def.sync(ctx);
    } catch (err) {
      this.host.causedBy(undefined);
      const why = thrownMessage(err);
      throw new Error(`steadystate.environment(${spec.name}): sync of ${this.def.for} ${key} threw at t=${now} ms: ${why}`, { cause: err });
    }
    this.host.causedBy(undefined);
    let after = r && typeof r === 'object' && typeof r.afterMs === 'number' && r.afterMs >= 0 ? r.afterMs : undefined;
    if (this.host.takeWriteFailed()) after = Math.min(after ?? RETRY_MS, RETRY_MS);
    if (after !== undefined) this.timer(key, after, { events: c?.events ?? [], external: c === undefined || c.external });
  }

  stop(): void {
    for (const t of this.timers.values()) t.cancelled = true;
    this.timers.clear();
    this.dirty.clear();
    this.causes.clear();
  }
}
