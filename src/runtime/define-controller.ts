import type { JsonObject, StoredObject } from '../store/object.js';
import type { LabelSelector } from '../store/selector.js';
import type { ControllerProcess } from './controller-process.js';
import type { RateLimiterOptions } from './rate-limiter.js';
import type { Reconciler } from './reconcile.js';

/** What a watch's `map` may use: the virtual clock (a map may be slow, see {@link WatchMapping.map}) and the cache. @public */
export interface WatchMapContext {
  readonly clock: {
    /** Virtual time in ms. */
    now(): number;
    /** Sleeps `ms` of virtual time (only an async `map` can await it). */
    sleep(ms: number): Promise<void>;
  };
  /**
   * Objects of a kind from this controller's informer cache (copies), as a controller-runtime
   * map function lists with the manager's cached client: e.g. every mirror to re-sync when a
   * Namespace appears. Never reaches the API server.
   */
  list(kind: string, options?: { namespace?: string; labelSelector?: LabelSelector }): StoredObject[];
}

/** A custom event → keys mapping (controller-runtime `Watches` with `EnqueueRequestsFromMapFunc`). @public */
export interface WatchMapping {
  kind: string;
  /**
   * Keys (`namespace/name`) of primary objects to reconcile when an object of `kind` changes.
   * It may return a promise (an event handler doing heavy work): like client-go's
   * processorListener, the cache is updated at once, but this controller's later notifications
   * wait until the promise settles, so a slow map delays every change this controller sees.
   */
  map: (object: StoredObject, ctx: WatchMapContext) => string[] | Promise<string[]>;
}

/** Options of {@link defineController}; `S` is the type of its in-memory {@link ControllerOptions.state}. @public */
export interface ControllerOptions<S = unknown> {
  /** Unique name; also the actor name in the trace (`controller:<name>/<replica>`). */
  name: string;
  /** The primary kind: its events enqueue its own key. */
  for: string;
  /** Owned kinds: their events enqueue the key of the controlling owner of kind `for`. @defaultValue [] */
  owns?: string[];
  /** Custom mappings. @defaultValue [] */
  watches?: WatchMapping[];
  /** The reconcile function. */
  reconcile: Reconciler<S>;
  /**
   * Makes the controller's in-memory state, which reconciles reach as `ctx.state`: what a real
   * controller keeps in its process (client-go's ControllerExpectations, a "last seen
   * generation" map, a rate-limit bucket). It is called once for each incarnation of each
   * replica (lazily, on its first reconcile), so, as with a process's memory, every run starts
   * with a fresh one and a crash-restart loses it. Keep such state here rather than in
   * module-level variables: one process runs all of a check's simulations (its runs, their
   * fault-free twins, the determinism re-runs), so a module-level cache carries entries from one
   * into the next, and a simulated crash does not clear it.
   * @defaultValue undefined (`ctx.state` is undefined)
   */
  state?: () => S;
  /**
   * Re-enqueue every cached key this often (virtual ms); 0 disables.
   * @defaultValue 36_000_000 (10 h, controller-runtime's SyncPeriod)
   */
  resyncPeriodMs?: number;
  /** Workers. @defaultValue 1 */
  maxConcurrentReconciles?: number;
  /** Rate limiter overrides (client-go defaults otherwise). */
  rateLimiter?: RateLimiterOptions;
  /**
   * Only one replica reconciles at a time, holding a Lease object in the store (client-go
   * leaderelection). Left out, it is on whenever more than one replica runs, as operators are
   * deployed (`--leader-elect`); a single replica runs without it. `false` declares that the
   * controller runs without it: then every replica reconciles (and the `second-replica` fault runs
   * two active replicas). `true` runs it even with one replica.
   * @defaultValue undefined (on when more than one replica runs)
   */
  leaderElection?: boolean;
  /**
   * Filters events of the primary kind before they enqueue (controller-runtime predicates).
   * `GenerationChanged` drops updates that did not change `metadata.generation`.
   * @defaultValue []
   */
  predicates?: ('GenerationChanged')[];
  /**
   * Example specs of the primary kind. `check` creates and updates objects from them when no
   * `objects` option is given, so a controller can be checked with no further setup.
   * @defaultValue [] (check then uses an empty spec)
   */
  sample?: JsonObject | readonly JsonObject[];
  /**
   * Runs the controller as its own process (e.g. `kubeController` from kube-rest) instead of the
   * built-in informers, queue and workers; `reconcile` is then never called.
   * @defaultValue undefined
   */
  process?: ControllerProcess;
}

/** A controller as a value (like an msw handler): pass it to `simulate` or `check`. @public */
export interface ControllerDefinition extends Readonly<Required<Omit<ControllerOptions, 'rateLimiter' | 'sample' | 'process' | 'leaderElection' | 'state'>>> {
  /** Makes a replica incarnation's in-memory state ({@link ControllerOptions.state}), when it has one. */
  readonly state?: () => unknown;
  /** {@link ControllerOptions.leaderElection}: undefined means on whenever more than one replica runs. */
  readonly leaderElection: boolean | undefined;
  /** The controller's own process, when it brings one ({@link ControllerOptions.process}). */
  readonly process?: ControllerProcess;
  readonly rateLimiter: Required<RateLimiterOptions>;
  /** Example specs of the primary kind ({@link ControllerOptions.sample}). */
  readonly sample: readonly JsonObject[];
  readonly __steadystate: 'controller';
}

/**
 * Defines a controller. Validates the options at once, with a message naming the bad field.
 * @example
 * ```ts
 * const web = defineController({
 *   name: 'web',
 *   for: 'WebApp',
 *   async reconcile(ctx) {
 *     const app = await ctx.client.tryGet('WebApp', ctx.key);
 *     if (!app) return;
 *     // … compare desired vs actual, write only when different …
 *   },
 * });
 * ```
 * In-memory state (fresh per replica incarnation, lost on a crash) goes in `state`:
 * ```ts
 * defineController({ name: 'web', for: 'WebApp', state: () => ({ expected: new Map<string, string>() }), reconcile(ctx) { ctx.state.expected.get(ctx.key); } });
 * ```
 * @public
 */
export function defineController<S = undefined>(options: ControllerOptions<S>): ControllerDefinition {
  const where = 'steadystate.defineController';
  if (options === null || typeof options !== 'object') throw new TypeError(`${where}: expected an options object, got ${String(options)}`);
  if (typeof options.name !== 'string' || options.name === '') throw new TypeError(`${where}: "name" must be a non-empty string, got ${JSON.stringify(options.name)}`);
  if (/[/\s]/.test(options.name)) throw new TypeError(`${where}({ name: ${JSON.stringify(options.name)} }): a name may not contain "/" or spaces; use something like "web-controller"`);
  if (typeof options.for !== 'string' || options.for === '') throw new TypeError(`${where}({ name: "${options.name}" }): "for" must name the primary kind, e.g. for: 'WebApp'`);
  if (typeof options.reconcile !== 'function') throw new TypeError(`${where}({ name: "${options.name}" }): "reconcile" must be a function (ctx) => result`);
  const workers = options.maxConcurrentReconciles ?? 1;
  if (!Number.isInteger(workers) || workers < 1) throw new TypeError(`${where}({ name: "${options.name}" }): maxConcurrentReconciles must be an integer ≥ 1, got ${workers}`);
  const resync = options.resyncPeriodMs ?? 36_000_000;
  if (!(resync >= 0) || !Number.isFinite(resync)) throw new TypeError(`${where}({ name: "${options.name}" }): resyncPeriodMs must be a finite number ≥ 0 (0 disables), got ${resync}`);
  if (options.sample !== undefined && ![options.sample].flat().every((x) => x !== null && typeof x === 'object' && !Array.isArray(x)))
    throw new TypeError(`${where}({ name: "${options.name}" }): "sample" must be a spec object or a list of them, e.g. sample: { replicas: 3 }`);
  if (options.leaderElection !== undefined && typeof options.leaderElection !== 'boolean') throw new TypeError(`${where}({ name: "${options.name}" }): leaderElection must be true, false (the controller runs without it) or left out (on when more than one replica runs), got ${JSON.stringify(options.leaderElection)}`);
  if (options.state !== undefined && typeof options.state !== 'function') throw new TypeError(`${where}({ name: "${options.name}" }): "state" must be a function that makes the in-memory state of one replica, e.g. state: () => ({ expectations: new Map() }), got ${typeof options.state}`);
  if (options.process !== undefined && typeof options.process?.start !== 'function') throw new TypeError(`${where}({ name: "${options.name}" }): "process" must be an object with start(env, replica), such as kubeController(...) makes`);
  const rl = options.rateLimiter ?? {};
  const def: ControllerDefinition = Object.freeze({
    __steadystate: 'controller' as const,
    name: options.name,
    for: options.for,
    owns: [...(options.owns ?? [])],
    watches: [...(options.watches ?? [])],
    // the context gives each reconcile the state its definition's factory made, so S holds
    reconcile: options.reconcile as Reconciler,
    resyncPeriodMs: resync,
    maxConcurrentReconciles: workers,
    leaderElection: options.leaderElection,
    predicates: [...(options.predicates ?? [])],
    sample: options.sample === undefined ? [] : isSpecList(options.sample) ? [...options.sample] : [options.sample],
    ...(options.process !== undefined ? { process: options.process } : {}),
    ...(options.state !== undefined ? { state: options.state } : {}),
    rateLimiter: { baseDelayMs: rl.baseDelayMs ?? 5, maxDelayMs: rl.maxDelayMs ?? 1_000_000, qps: rl.qps ?? 10, burst: rl.burst ?? 100 },
  });
  const site = callSite(new Error().stack);
  if (site) definedAt.set(def, site);
  return def;
}

/** Where each controller was defined (file and line of the `defineController` call), from the stack. */
const definedAt = new WeakMap<ControllerDefinition, { file: string; line: number }>();

/**
 * The file and line where a controller was defined, when the stack showed it: lets a report
 * written from a test name the module to import in its regression snippet.
 * @internal
 */
export function controllerDefinedAt(def: ControllerDefinition): { file: string; line: number } | undefined {
  return definedAt.get(def);
}

/** The first stack frame outside this file: the caller of defineController. */
function callSite(stack: string | undefined): { file: string; line: number } | undefined {
  const frames = (stack ?? '').split('\n').slice(1);
  let own: string | undefined;
  for (const f of frames) {
    const m = /\(?((?:file:\/\/)?(?:\/|[A-Za-z]:[\\/])[^():]*?):(\d+):\d+\)?\s*$/.exec(f);
    if (!m) continue;
    const raw = m[1]!.replace(/\?.*$/, '');
    const file = raw.startsWith('file://') ? decodeURIComponent(raw.slice('file://'.length)) : raw;
    own ??= file;
    if (file !== own) return { file, line: Number(m[2]) };
  }
  return undefined;
}

/**
 * True for values made by {@link defineController}: the brand and the shape it gives (by shape,
 * not identity, so a controller made by another copy of steadystate still counts).
 * @public
 */
export function isControllerDefinition(value: unknown): value is ControllerDefinition {
  return typeof value === 'object' && value !== null && (value as { __steadystate?: unknown }).__steadystate === 'controller' && forgedControllerProblem(value) === undefined;
}

/**
 * What is wrong with a value that carries the controller brand (`__steadystate: 'controller'`)
 * but was not made by {@link defineController}, or undefined when it is a real one.
 * @internal
 */
export function forgedControllerProblem(value: object): string | undefined {
  const v = value as Partial<Record<keyof ControllerDefinition, unknown>>;
  const missing: string[] = [];
  if (typeof v.name !== 'string' || v.name === '') missing.push('a name');
  if (typeof v.for !== 'string' || v.for === '') missing.push('a primary kind (for)');
  if (typeof v.reconcile !== 'function') missing.push('a reconcile function');
  if (!Array.isArray(v.owns) || !Array.isArray(v.watches) || !Array.isArray(v.predicates) || !Array.isArray(v.sample)) missing.push('the owns, watches, predicates and sample lists');
  if (typeof v.resyncPeriodMs !== 'number' || typeof v.maxConcurrentReconciles !== 'number' || typeof v.rateLimiter !== 'object' || v.rateLimiter === null) missing.push('the resolved options (resync period, workers, rate limiter)');
  if (!Object.isFrozen(value)) missing.push('the freezing defineController applies');
  return missing.length === 0 ? undefined : `it lacks ${missing.join(', ')}`;
}

function isSpecList(sample: JsonObject | readonly JsonObject[]): sample is readonly JsonObject[] {
  return Array.isArray(sample);
}
