import { Kernel, type KernelOptions } from '../sim/kernel.js';
import { createRng, type Rng } from '../sim/rng.js';
import { Trace, type TraceEntry } from '../sim/trace.js';
import { fnv1aJsonList, hex8 } from '../sim/hash.js';
import { ObjectStore, type WriteRecord } from '../store/store.js';
import type { NewObject, StoredObject } from '../store/object.js';
import type { ValidationOptions } from '../store/immutability.js';
import { currentAnswers, currentTimerCause } from '../host/host-context.js';
import { Seams } from '../runtime/seams.js';
import { stampsOnly } from './stamps.js';
import type { RuntimeEnv } from '../runtime/env.js';
import type { Manager } from '../runtime/manager.js';
import type { FakeRestService, RestResource } from '../downstream/fake-rest-service.js';
import type { RecordedRequest } from './property.js';
import type { ResolvedScenarioOptions, Scenario } from './scenario.js';

/** Read-only view of the world handed to user predicates (convergence, invariants). @public */
export interface WorldView {
  /** Virtual time (ms). */
  now(): number;
  /** Current object (immutable snapshot; do not mutate) or undefined. */
  get(kind: string, key: string): StoredObject | undefined;
  /** Every current object of a kind (immutable snapshots). */
  list(kind: string): StoredObject[];
  /** Kinds that have objects. */
  kinds(): string[];
  /**
   * Contents of a fake downstream service (deep copies, in creation order): the resources of one
   * collection, or of all its collections. Throws, naming the services there are, for an unknown
   * name (a predicate that throws counts as false, with the message).
   * @example (v) => v.list('DnsRecord').every((r) => v.downstream('dns', 'records').filter((x) => x['owner'] === r.metadata.uid).length === 1)
   */
  downstream(service: string, collection?: string): RestResource[];
  /** Names of the run's fake downstream services. */
  services(): string[];
  /** Every downstream request so far, in order (method, URL, status, outcome, virtual times, actor). */
  requests(): RecordedRequest[];
  /**
   * Every request hosted programs (`defineProgram`, `kubeController`) sent to the simulated
   * Kubernetes API and got an answer to so far, in order of the answers (a watch once, when its
   * stream opened). Empty for `defineController` controllers, which do not speak HTTP.
   * @example (v) => v.apiRequests().filter((r) => r.watch && r.status === 200).length >= 2 // it watched again
   */
  apiRequests(): ApiRequest[];
}

/** One answered request of a hosted program to the simulated API (an `http:request` trace entry). @public */
export interface ApiRequest {
  /** When the answer (its headers) arrived, virtual ms. */
  t: number;
  controller: string;
  replica: number;
  method: string;
  /** Path and query, as sent. */
  path: string;
  status: number;
  /** Virtual ms between sending it and its answer. */
  ms: number;
  /** A watch stream that opened (or was refused). */
  watch: boolean;
}

/** Where the run is. @public */
export type RunPhase = 'faults' | 'settle' | 'tail';

/**
 * All state of one run in one place (turmoil's `Sim`): clock and scheduler, one seeded rng,
 * the store, the seams faults plug into, the controllers and the trace.
 * @public
 */
export interface World {
  readonly scenario: Scenario;
  readonly options: ResolvedScenarioOptions;
  readonly kernel: Kernel;
  readonly rng: Rng;
  readonly store: ObjectStore;
  readonly seams: Seams;
  readonly trace: Trace;
  readonly writes: WriteRecord[];
  /** Indices in `writes` of the controller writes that changed nothing but time stamps of their own moment (see {@link stampsOnly}). */
  readonly stamped: number[];
  /** Indices in `writes` of the controller writes that made their object bigger (as etcd counts it: see `storage-size.ts`). */
  readonly grown: number[];
  readonly env: RuntimeEnv;
  readonly managers: Manager[];
  /** Controllers whose replicas start later than t=0, by name (virtual ms): a benign variation's phase shift. */
  readonly startDelays: Map<string, number>;
  readonly view: WorldView;
  phase: RunPhase;
  /** Callbacks run at each write (safety invariants, environment actors). */
  readonly afterWrite: ((w: WriteRecord) => void)[];
  /**
   * The manifest a person last declared, per object (`kind`, NUL, key), as `kubectl apply` keeps
   * it in last-applied-configuration: what the user's accepted writes said, never what a
   * controller or the API server added (a scheduler's `spec.nodeName`, a controller's label).
   * A recreation applies it again; the user's spec update keeps the fields it never declared.
   */
  readonly declared: Map<string, NewObject>;
  /** Callbacks run when the settle phase begins (faults stop). */
  readonly onSettle: (() => void)[];
  /** Downstream state for properties (fake services), if any. */
  downstreamState?: () => unknown;
  /** The run's fake downstream services, for faults that edit them out of band (drift). */
  downstreamServices?: readonly FakeRestService[];
  /** The downstream request log so far (set by the run's downstream). */
  downstreamRequests?: () => RecordedRequest[];
}

/** Virtual ms between an owner's removal and the garbage collector's cascade. */
export const GC_DELAY_MS = 5;

/** Top-level fields {@link digestOf} does not list with the others (spec and status come first, the rest is metadata or fixed). */
function notOther(k: string): boolean {
  return k === 'spec' || k === 'apiVersion' || k === 'kind' || k === 'metadata' || k === 'status';
}

/** A reusable list for {@link digestOf} (never kept: filled, hashed, emptied of references). */
const digestParts: unknown[] = [undefined, undefined, undefined, undefined, undefined, undefined, undefined];

/**
 * `hex8(fnv1a(JSON.stringify([spec, status, labels, annotations, finalizers, ownerReferences,
 * deletionTimestamp ?? null, others?])))`, where `others` holds the top-level fields besides
 * spec (ConfigMap data, …) only when there are some, so other digests stay as they were. Hashed
 * as the text would be, without building the text (it runs on every store write).
 */
function digestOf(o: StoredObject): string {
  const m = o.metadata;
  const parts = digestParts;
  parts[0] = o.spec;
  parts[1] = o.status;
  parts[2] = m.labels;
  parts[3] = m.annotations;
  parts[4] = m.finalizers;
  parts[5] = m.ownerReferences;
  parts[6] = m.deletionTimestamp ?? null;
  try {
    return hex8(fnv1aJsonList(parts, o as unknown as Record<string, unknown>, notOther));
  } finally {
    for (let i = 0; i < parts.length; i++) parts[i] = undefined;
  }
}

/**
 * Every field of a {@link WriteRecord}, in the order the store builds its records with (the
 * compiler holds this list to the interface: a new field must be added here, and to
 * {@link writeEntry}).
 */
const WRITE_FIELDS: { [K in keyof Required<WriteRecord>]: true } = { t: true, actor: true, verb: true, kind: true, key: true, uid: true, rv: true, changed: true, noop: true, markedForDeletion: true, removed: true, orphaned: true, error: true };

/**
 * The trace entry of a store write: `{ type: 'store:write', ...w, digest }` (digest only when
 * given), with the same keys in the same order, so the same JSON and trace hash. A literal with
 * the optional fields assigned in the store's order costs a fifth of the spread, and it runs on
 * every write. Every record the store makes has its fields in {@link WRITE_FIELDS}' order
 * (test/harness/write-entry.test.ts holds it to that).
 * @internal
 */
export function writeEntry(w: WriteRecord, digest: string | undefined): TraceEntry {
  // the usual record (a write that changed an object, or a no-op): one literal, keys in the same order
  if (w.uid !== undefined && w.markedForDeletion === undefined && w.removed === undefined && w.error === undefined && w.orphaned === undefined && !('markedForDeletion' in w) && !('removed' in w) && !('error' in w)) {
    if (w.rv !== undefined) {
      if (digest !== undefined) return { type: 'store:write', t: w.t, actor: w.actor, verb: w.verb, kind: w.kind, key: w.key, uid: w.uid, rv: w.rv, changed: w.changed, noop: w.noop, digest } as unknown as TraceEntry;
    } else if (!('rv' in w)) {
      if (digest !== undefined) return { type: 'store:write', t: w.t, actor: w.actor, verb: w.verb, kind: w.kind, key: w.key, uid: w.uid, changed: w.changed, noop: w.noop, digest } as unknown as TraceEntry;
      return { type: 'store:write', t: w.t, actor: w.actor, verb: w.verb, kind: w.kind, key: w.key, uid: w.uid, changed: w.changed, noop: w.noop } as unknown as TraceEntry;
    }
  }
  const e = { type: 'store:write', t: w.t, actor: w.actor, verb: w.verb, kind: w.kind, key: w.key } as unknown as TraceEntry;
  if (w.uid !== undefined || 'uid' in w) e['uid'] = w.uid;
  if (w.rv !== undefined || 'rv' in w) e['rv'] = w.rv;
  e['changed'] = w.changed;
  e['noop'] = w.noop;
  if (w.markedForDeletion !== undefined || 'markedForDeletion' in w) e['markedForDeletion'] = w.markedForDeletion;
  if (w.removed !== undefined || 'removed' in w) e['removed'] = w.removed;
  if (w.orphaned !== undefined) e['orphaned'] = w.orphaned;
  if (w.error !== undefined || 'error' in w) e['error'] = w.error;
  if (digest !== undefined) e['digest'] = digest;
  return e;
}

/** The fields {@link writeEntry} copies, in its order. @internal */
export const WRITE_ENTRY_FIELDS: readonly string[] = Object.keys(WRITE_FIELDS);

/** @internal */
export function createWorld(scenario: Scenario, options: ResolvedScenarioOptions, traceReads: boolean, validation?: ValidationOptions, kernelOptions: KernelOptions = {}): World {
  const kernel = new Kernel(kernelOptions);
  const trace = new Trace();
  const writes: WriteRecord[] = [];
  const stamped: number[] = [];
  const grown: number[] = [];
  /** The stored size of each object (by uid) as of its last write: whether the next one made it bigger. */
  const sizes = new Map<string, number>();
  const afterWrite: ((w: WriteRecord) => void)[] = [];
  // methods, not arrow properties: under tsx every named arrow made per run costs a defineProperty
  const store = new ObjectStore({
    clock: kernel.clock,
    ...(validation ? { validation } : {}),
    onWrite(w) {
      writes.push(w);
      // the digest puts written values (not only paths) into the trace hash, so a reconciler
      // writing Math.random() or Date.now() shows up in the determinism check
      const obj = w.rv !== undefined && !w.removed ? store.peek(w.kind, w.key) : undefined;
      const e = writeEntry(w, obj ? digestOf(obj) : undefined);
      if (obj && !w.noop && w.actor.startsWith('controller:') && stampsOnly(obj, w.changed, w.t)) stamped.push(writes.length - 1);
      if (obj && !w.noop) {
        // the store measured it on the way in (cached): no walk of the object here
        const size = store.storedSizeOf(w.kind, w.key)!;
        const before = sizes.get(obj.metadata.uid);
        sizes.set(obj.metadata.uid, size);
        if (before !== undefined && size > before && w.actor.startsWith('controller:')) grown.push(writes.length - 1);
      } else if (w.removed === true && w.uid !== undefined) sizes.delete(w.uid);
      // a hosted program's write made by one of its own schedules (a timer's firing, not an event): scheduled work
      const cause = currentTimerCause();
      if (cause !== undefined) {
        e['timer'] = cause.chain;
        e['fire'] = cause.fire;
        e['firedAt'] = cause.at;
        e['every'] = cause.every;
      } else {
        // a hosted program's write made answering watch events: what it reacts to
        const answers = currentAnswers();
        if (answers !== undefined) e['answers'] = [...answers];
      }
      trace.push(e);
      for (const f of afterWrite) f(w);
    },
    // the garbage collector is a separate controller: it acts a little later, never at the same
    // virtual instant (a controller re-creating a collected child would otherwise livelock time)
    defer(fn) {
      kernel.after(GC_DELAY_MS, fn);
    },
  });
  const seams = new Seams();
  const env: RuntimeEnv = {
    kernel,
    store,
    seams,
    trace,
    watchLatencyMs: options.watchLatencyMs,
    rewatchDelayMs: options.rewatchDelayMs,
    traceReads,
  };
  const apiLog = apiRequestLog(trace);
  const view: WorldView = {
    now() {
      return kernel.now();
    },
    get(kind, key) {
      return store.peek(kind, key);
    },
    list(kind) {
      return store.peekAll(kind);
    },
    kinds() {
      return store.kindNames().filter((k) => store.count(k) > 0);
    },
    downstream(service, collection) {
      const services = world.downstreamServices ?? [];
      const svc = services.find((x) => x.name === service);
      if (!svc) throw new Error(`view.downstream(${JSON.stringify(service)}): the run has no fake downstream service of that name (its services: ${services.map((x) => JSON.stringify(x.name)).join(', ') || 'none; pass downstream: () => ({ services: [fakeRestService({...})] })'})`);
      return svc.resources(collection);
    },
    services() {
      return (world.downstreamServices ?? []).map((x) => x.name);
    },
    requests() {
      return world.downstreamRequests?.() ?? [];
    },
    apiRequests() {
      return apiLog.read();
    },
  };
  const world: World = {
    scenario,
    options,
    kernel,
    rng: createRng(scenario.seed),
    store,
    seams,
    trace,
    writes,
    stamped,
    grown,
    env,
    managers: [],
    startDelays: new Map(),
    view,
    phase: 'faults',
    afterWrite,
    declared: new Map(),
    onSettle: [],
  };
  return world;
}

/** An `http:request` trace entry as an {@link ApiRequest} (undefined for any other entry). @internal */
export function apiRequestOf(e: TraceEntry): ApiRequest | undefined {
  if (e.type !== 'http:request') return undefined;
  return { t: e.t, controller: String(e['controller']), replica: Number(e['replica']), method: String(e['method']), path: String(e['path']), status: Number(e['status']), ms: Number(e['ms']), watch: e['watch'] === true };
}

/** The API requests of a growing trace, read incrementally. */
function apiRequestLog(trace: Trace): { read(): ApiRequest[] } {
  const log: ApiRequest[] = [];
  let scanned = 0;
  return {
    read() {
      const entries = trace.entries;
      for (; scanned < entries.length; scanned++) {
        const r = apiRequestOf(entries[scanned]!);
        if (r !== undefined) log.push(r);
      }
      return log.slice();
    },
  };
}
