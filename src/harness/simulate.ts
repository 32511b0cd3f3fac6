import { keyOf, type NewObject } from '../store/object.js';
import type { ValidationOptions } from '../store/immutability.js';
import { isStoreError } from '../store/errors.js';
import type { ControllerDefinition } from '../runtime/define-controller.js';
import type { FetchResponse } from '../runtime/env.js';
import { Manager } from '../runtime/manager.js';
import type { Task } from '../sim/kernel.js';
import { thrownMessage } from '../sim/thrown.js';
import type { TraceEntry } from '../sim/trace.js';
import type { FaultModule } from './fault.js';
import type { Probe, ProbeResult, ProbeSample, Property, RecordedRequest, RunRecord } from './property.js';
import { resolveScenarioOptions, type ResolvedScenarioOptions, type Scenario } from './scenario.js';
import { declareCreated, runAction, scheduleWorkload } from './user-actions.js';
import { createWorld, type World } from './world.js';
import type { EnvironmentActor } from './environment.js';
import type { CreateDownstreamOptions } from '../downstream/intercept.js';
import { createRunDownstream, recordRefused } from '../downstream/run-downstream.js';
import { guardNetwork } from '../downstream/net-guard.js';
import { callerOf } from './isolation.js';
import { guardLoops } from './loop-guard.js';
import { realSetImmediate } from '../sim/globals.js';
import type { RunScope } from '../host/host-context.js';
import { guardRun, recordEscape } from '../host/run-guard.js';

/**
 * A downstream for one run (built by `createDownstream`): routes `ctx.fetch`, records requests,
 * exposes fake-service state, and is disposed (global patches restored) when the run ends.
 * @public
 */
export interface RunDownstream {
  fetch(task: Task | undefined, actor: string, input: string | URL | Request, init?: RequestInit): Promise<FetchResponse>;
  requests(): RecordedRequest[];
  state(): unknown;
  dispose(): void;
}

/** Options of {@link simulate}. @public */
export interface SimulateOptions {
  /** The controllers the scenario names (matched by `name`). */
  controllers: readonly ControllerDefinition[];
  /** Fault modules the plan may name. @defaultValue [] (the public `simulate` passes the built-ins) */
  faults?: readonly FaultModule[];
  /** Properties whose probes run during the simulation. @defaultValue [] */
  properties?: readonly Property[];
  /** Extra probes. @defaultValue [] */
  probes?: readonly Probe[];
  /** Environment actors the scenario names. @defaultValue [] */
  environment?: readonly EnvironmentActor[];
  /**
   * The run's downstream: a factory called once per run (fake services hold state, so each run
   * needs fresh ones) returning fake services and msw handlers, or a full custom builder.
   * @example downstream: () => ({ services: [fakeRestService({ baseUrl: 'https://dns.example' })] })
   */
  downstream?: (() => CreateDownstreamOptions) | { build: (world: World) => RunDownstream };
  /** Record every read in the trace. @defaultValue true */
  traceReads?: boolean;
  /**
   * What the simulated API server validates besides the built-in kinds' rules: immutable paths
   * of custom kinds (`{ immutable: { Database: ['spec.storageClass'] } }`).
   * @defaultValue {}
   */
  validation?: ValidationOptions;
  /** Length of the quiet tail after settle, where extra reconciles probe idempotence. 0 disables. @defaultValue 10_000 */
  tailMs?: number;
  /** @internal Called with the world before the run starts (behaviour-coverage observers: they may hook `world.afterWrite`). */
  observe?: (world: World) => void;
  /**
   * Kernel events after which the run is cut short (recorded as `run:budget` in the trace and
   * `timing.exhausted`): a reconcile loop that never lets virtual time advance must not hang.
   * A big world does proportionally more honest work, so the default grows with its objects.
   * @defaultValue 2_000_000 + 50 per object the scenario creates
   */
  maxSteps?: number;
  /**
   * The host's wall clock (ms), injected (the simulation never reads one): with it the kernel
   * yields to the host event loop at least every 50 ms of wall time, so test timeouts, progress
   * output and Ctrl-C work during a long run. Virtual time and the trace are unaffected.
   * @defaultValue none (the public `simulate` and `check` pass `performance.now`)
   */
  wallClock?: () => number;
  /** Called at each host yield; returning true ends the run at once (`timing.interrupted`): a wall-clock budget ran out. @defaultValue none */
  onYield?: () => boolean | void;
  /**
   * Let the properties' monitors stop the run once a failure is certain (`timing.stoppedEarly`).
   * `'certain'`: only at a prediction its monitor says is certain (prefix-closed); a guess is let
   * run on, so the run ends where its verdict is known (a certain stop, or its end).
   * @defaultValue false
   */
  earlyStop?: boolean | 'certain';
  /**
   * Extra world hooks installed after the faults, each returning its uninstall function: the
   * benign variations a fault-free twin is run under to learn masks. @defaultValue []
   */
  install?: readonly ((world: World) => () => void)[];
}

/** The result of one simulation: the record properties judge, plus the live world. @public */
export interface SimulationResult {
  run: RunRecord;
  world: World;
}

/** A usage error in a scenario or options (bad name, malformed field). @public */
export class ScenarioError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScenarioError';
  }
}

/**
 * Runs one scenario to completion in virtual time. A pure function of (controller code,
 * scenario): the same inputs give a byte-identical trace.
 * @public
 */
export async function simulate(scenario: Scenario, options: SimulateOptions): Promise<SimulationResult> {
  const opts = resolveScenarioOptions(scenario.options);
  const world = createWorld(scenario, opts, options.traceReads ?? true, options.validation, options.wallClock ? { wallClock: options.wallClock } : {});
  options.observe?.(world);
  // the run guard: the code under test can neither end nor outlive the harness (src/host/run-guard.ts)
  const names = new Set(scenario.controllers.map((c) => c.name));
  const hosted = options.controllers.some((c) => names.has(c.name) && c.process !== undefined);
  return guardRun(
    () => world.kernel.now(),
    (scope) => simulateGuarded(world, scenario, opts, options, scope),
    { hosted },
  );
}

async function simulateGuarded(world: World, scenario: Scenario, opts: ResolvedScenarioOptions, options: SimulateOptions, scope: RunScope): Promise<SimulationResult> {
  const { kernel, trace } = world;
  if (options.onYield) kernel.onYield = options.onYield;
  const blocked: RunRecord['blocked'] = [];
  kernel.onBlocked = (b) => {
    // a task given up on because it spun is the loop verdict's business, not a "waited outside" note
    if (b.reason === 'loop') return;
    blocked.push({ label: b.task.label, at: b.at, startedAt: b.task.startedAt });
    trace.push({ t: b.at, type: 'kernel:blocked', task: b.task.label, startedAt: b.task.startedAt });
  };
  // code that never lets the kernel in (a microtask or tick loop) is stopped and named
  const loops = guardLoops(kernel, () => callerOf(kernel), (loop) => {
    trace.push({ t: kernel.now(), type: 'kernel:loop', via: loop.via, calls: loop.calls, caller: loop.origin ?? null });
    kernel.abandonRunning('loop');
    kernel.stop();
  });

  const uninstall: (() => void)[] = [];
  let downstream: RunDownstream | undefined;
  // nothing leaves the process while the run lives; refusals become `network:refused` entries
  const releaseGuard = guardNetwork({ caller: () => callerOf(kernel), refused: (request, caller) => recordRefused(world, request, caller) });
  try {
    trace.push({ t: 0, type: 'run:start', seed: scenario.seed });
    // always a downstream, empty when none is given: no request may leave the process, and an
    // unhandled one fails with a message naming the URL and the fix
    downstream = typeof options.downstream === 'function' ? createRunDownstream(world, options.downstream()) : options.downstream ? options.downstream.build(world) : createRunDownstream(world, {});
    const ds = downstream;
    world.env.fetch = (task, actor, input, init) => ds.fetch(task, actor, input, init);
    if (options.downstream) world.downstreamState = () => ds.state();
    world.downstreamRequests = () => ds.requests();

    installWorld(world, scenario, options, uninstall);

    const defs = startControllers(world, scenario, options, opts);

    const plan = planRun(world, scenario, options, opts, defs);
    kernel.maxSteps = options.maxSteps ?? 2_000_000 + 50 * (scenario.initialObjects.length + scenario.workload.filter((a) => a.type === 'create').length);
    await kernel.run(plan.end);
    // ticks and microtasks the run left queued run now, while the guard can still blame a loop on this run
    if (loops.pending()) await new Promise<void>((r) => realSetImmediate(r));
    if (kernel.interrupted) trace.push({ t: kernel.now(), type: 'run:interrupted' });
    if (kernel.exhausted) trace.push({ t: kernel.now(), type: 'run:budget', steps: kernel.steps });
    trace.push({ t: kernel.now(), type: 'run:end' });

    const run = runRecordOf(world, scenario, options, opts, defs, plan, blocked, downstream, scope);
    return { run, world };
  } finally {
    for (const m of world.managers) m.stop();
    for (const u of uninstall.reverse()) {
      try {
        u();
      } catch {
        // uninstalling must never hide the run's own outcome
      }
    }
    downstream?.dispose();
    releaseGuard();
    const replaced = loops.release();
    if (replaced.length > 0) recordEscape(scope, { kind: 'replaced-builtin', code: 1, message: replaced.join(', ') });
  }
}

/*
 * The set-up and the record of a run, out of {@link simulateGuarded}: V8 optimizes that async
 * function once it is hot (it runs once per simulation) and re-optimizes it after each deopt; as
 * one 6.5 KB body it took TurboFan's background threads about a second per compile (each a
 * few hundred ms of CPU, in a 300-scenario check), for code that runs once per simulation.
 */

/** The Namespaces, the scenario's initial objects, the faults, the world hooks and the environment actors. */
function installWorld(world: World, scenario: Scenario, options: SimulateOptions, uninstall: (() => void)[]): void {
  const { kernel, store, trace } = world;
  // the Namespaces a cluster and the test's setup have; from here on a create into any other namespace is 404
  store.seedNamespaces(namespacesOf(scenario, store));
  // Namespaces first, as kubectl apply -k and Helm install them
  for (const obj of scenario.initialObjects) if (obj.kind === 'Namespace') createAsUser(world, obj);
  for (const obj of scenario.initialObjects) if (obj.kind !== 'Namespace') createAsUser(world, obj);

  // faults
  // the module of each kind the plan names, looked up (the last of a kind wins): no map of every module per run
  const kinds = new Set<string>([...scenario.faults.events.map((e) => e.kind), ...scenario.faults.background.map((b) => b.kind)]);
  for (const kind of [...kinds].sort()) {
    const mod = lastNamed(options.faults, kind, (f) => f.kind);
    if (!mod) throw new ScenarioError(`steadystate.simulate: the fault plan names kind "${kind}", but no fault module of that kind was given (known: ${[...byName(options.faults, (f) => f.kind).keys()].join(', ') || 'none'}). Pass it in options.faults or remove it from the plan.`);
    const rng = world.rng.fork(`fault:${kind}`);
    uninstall.push(
      mod.install(
        {
          world,
          rng,
          // the entry's `kind` is always the fault kind (coverage, shrinking and reports key on it); a detail that names an object kind keeps it as `objectKind`
          // the fields in the order one spread literal gives them, built by Object.assign and
          // stores: V8 (Node 20) adds a field to a `{ ...x }` copy at ~30× the cost of a store
          fired(detail) {
            const e: Record<string, unknown> = Object.assign({}, detail);
            if (detail['type'] !== undefined) e['decision'] = detail['type'];
            e['t'] = kernel.now();
            e['type'] = 'fault:inject';
            if (detail['kind'] !== undefined && detail['kind'] !== kind) e['objectKind'] = detail['kind'];
            e['kind'] = kind;
            trace.push(e as unknown as TraceEntry);
          },
        },
        { events: scenario.faults.events.filter((e) => e.kind === kind), background: scenario.faults.background.filter((b) => b.kind === kind) },
      ),
    );
  }

  // world hooks besides the faults (benign variations of a fault-free twin)
  for (const install of options.install ?? []) uninstall.push(install(world));

  // environment actors
  for (const ref of scenario.environment ?? []) {
    const actor = lastNamed(options.environment, ref.name, (a) => a.name);
    if (!actor) throw new ScenarioError(`steadystate.simulate: the scenario names environment actor "${ref.name}", but none of that name was given (known: ${[...byName(options.environment, (a) => a.name).keys()].join(', ') || 'none'}).`);
    uninstall.push(actor.install(world, ref.params ?? {}));
  }
}

/** Starts the scenario's controllers; their definitions by name. */
function startControllers(world: World, scenario: Scenario, options: SimulateOptions, opts: ResolvedScenarioOptions): Map<string, ControllerDefinition> {
  const defs = new Map<string, ControllerDefinition>();
  for (const d of options.controllers) defs.set(d.name, d);
  for (const ref of scenario.controllers) {
    const def = defs.get(ref.name);
    if (!def) throw new ScenarioError(`steadystate.simulate: the scenario names controller "${ref.name}", but no controller of that name was given (known: ${[...defs.keys()].join(', ') || 'none'}).`);
    const m = new Manager(world.env, def, { replicas: ref.replicas ?? 1, restartDelayMs: opts.restartDelayMs });
    world.managers.push(m);
    const delay = world.startDelays.get(def.name);
    if (delay !== undefined && delay > 0) world.kernel.at(delay, () => m.start());
    else m.start();
  }
  return defs;
}

/** What {@link planRun} schedules and what the run record reads back from it. */
interface RunPlan {
  lastActionAt: number;
  settleStart: number;
  tailStart: number;
  end: number;
  tailMs: number;
  samples: Record<string, ProbeSample[]>;
  settledObjects: RunRecord['settledObjects'];
  stoppedEarly: NonNullable<RunRecord['timing']['stoppedEarly']> | undefined;
}

/** Schedules the workload, the phases, the probes and the monitors. */
function planRun(world: World, scenario: Scenario, options: SimulateOptions, opts: ResolvedScenarioOptions, defs: Map<string, ControllerDefinition>): RunPlan {
  const { kernel, trace, seams } = world;
  // workload
  let lastActionAt = 0;
  for (const a of scenario.workload) lastActionAt = Math.max(lastActionAt, a.at);
  scheduleWorkload(world, scenario.workload);

  // phases
  const settleStart = Math.max(opts.faultWindowMs, lastActionAt);
  const tailStart = settleStart + opts.settleMs;
  const tailMs = options.tailMs ?? 10_000;
  const end = tailStart + tailMs;
  const plan: RunPlan = { lastActionAt, settleStart, tailStart, end, tailMs, samples: {}, settledObjects: [], stoppedEarly: undefined };
  kernel.at(settleStart, () => {
    world.phase = 'settle';
    trace.push({ t: kernel.now(), type: 'run:phase', phase: 'settle' });
    seams.deactivate();
    for (const f of world.onSettle) f();
    if (opts.relistOnSettle) {
      // the native runtime's informers relist once (SPEC §3), recorded so reports can say so;
      // a hosted process is left alone: the settle phase only stops the faults for it
      const relisted = world.managers.filter((m) => !m.def.process).map((m) => m.def.name);
      if (relisted.length > 0) trace.push({ t: kernel.now(), type: 'settle:relist', controllers: relisted });
      for (const m of world.managers) m.relistAll();
    }
  });
  kernel.at(tailStart, () => {
    plan.settledObjects = allObjects(world);
    world.phase = 'tail';
    trace.push({ t: kernel.now(), type: 'run:phase', phase: 'tail' });
    if (tailMs > 0) poke(world);
  });

  // probes
  const probeCtx = { controllers: scenario.controllers.map((c) => c.name), primaryKinds: scenario.controllers.map((c) => defs.get(c.name)!.for) };
  const probes = [...(options.properties ?? []).flatMap((p) => p.probes(probeCtx)), ...(options.probes ?? [])];
  const samples = plan.samples;
  for (const p of probes) {
    samples[p.name] = [];
    const afterWrite = p.everyMs === 'write';
    const sample = () => {
      if (!p.phases.includes(world.phase)) return;
      let r: boolean | string | ProbeResult;
      try {
        r = p.fn(world.view);
      } catch (err) {
        r = `the predicate threw: ${thrownMessage(err)}`;
      }
      const t = kernel.now();
      // fields set one by one, not by conditional spreads: this runs after every store write
      let s: ProbeSample;
      if (typeof r === 'object' && r !== null) {
        s = { t, ok: r.ok === true };
        if (r.detail !== undefined) s.detail = r.detail;
        if (r.data !== undefined) s.data = r.data;
      } else s = r === true ? { t, ok: true } : typeof r === 'string' ? { t, ok: false, detail: r } : { t, ok: false };
      if (afterWrite) s.write = world.writes.length - 1;
      samples[p.name]!.push(s);
    };
    if (p.everyMs === 'write') world.afterWrite.push(sample);
    else {
      const every = Math.max(1, p.everyMs);
      const tick = () => {
        sample();
        if (kernel.now() + every <= end) kernel.after(every, tick);
      };
      kernel.at(0, tick);
    }
  }

  // monitors: a property whose failure is already certain stops the run there
  if (options.earlyStop) {
    for (const p of options.properties ?? []) {
      const m = p.monitor?.(probeCtx);
      if (!m) continue;
      const live = { get now() { return kernel.now(); }, get phase() { return world.phase; }, trace: trace.entries, stamped: world.stamped, grown: world.grown, timing: { settleStart, tailStart }, view: world.view };
      world.afterWrite.push(() => {
        if (plan.stoppedEarly) return;
        const certain = m.afterWrite(live);
        if (!certain || (options.earlyStop === 'certain' && certain.certain !== true)) return;
        plan.stoppedEarly = { property: p.name, at: kernel.now(), from: certain.from, reason: certain.reason, ...(certain.certain === true ? { certain: true as const } : {}) };
        trace.push({ t: kernel.now(), type: 'run:stopped', property: p.name, reason: certain.reason });
        kernel.stop();
      });
    }
  }
  return plan;
}

/** The run's record, once the kernel stopped. */
function runRecordOf(world: World, scenario: Scenario, options: SimulateOptions, opts: ResolvedScenarioOptions, defs: Map<string, ControllerDefinition>, plan: RunPlan, blocked: RunRecord['blocked'], downstream: RunDownstream, scope: RunScope): RunRecord {
  const { kernel, trace } = world;
  const { lastActionAt, settleStart, tailStart, end, tailMs, samples, settledObjects, stoppedEarly } = plan;
  const run: RunRecord = {
    scenario,
    controllers: scenario.controllers.map((c) => c.name),
    primaryKinds: scenario.controllers.map((c) => defs.get(c.name)!.for),
    ...programsOf(scenario.controllers.map((c) => defs.get(c.name)!)),
    ...resyncFiltered(scenario.controllers.map((c) => defs.get(c.name)!)),
    trace: trace.entries,
    writes: world.writes,
    stamped: world.stamped,
    grown: world.grown,
    requests: downstream.requests(),
    settledObjects: tailMs > 0 ? settledObjects : allObjects(world),
    finalObjects: allObjects(world),
    probes: samples,
    timing: {
      faultWindowEnd: opts.faultWindowMs,
      lastActionAt,
      settleStart,
      tailStart,
      end: stoppedEarly || kernel.interrupted ? kernel.now() : end,
      ...(kernel.exhausted ? { exhausted: true, stoppedAt: kernel.now() } : {}),
      ...(stoppedEarly ? { stoppedEarly } : {}),
      ...(kernel.interrupted ? { interrupted: true } : {}),
    },
    blocked,
    downstream: options.downstream ? downstream.state() : null,
    hash: '',
    escapes: scope.escapes,
  };
  // counted while the run went on; how many were still pending is known once the guard clears them
  if (scope.realTimers.setTimeout + scope.realTimers.setInterval + scope.realTimers.setImmediate > 0) run.realTimers = scope.realTimers;
  // hashing a long trace costs as much as running it: compute on first read only
  let hash: string | undefined;
  Object.defineProperty(run, 'hash', { enumerable: true, configurable: true, get: () => (hash ??= trace.hash()) });
  return run;
}

/** The last of `items` named `wanted` (what {@link byName} maps it to), or undefined. */
function lastNamed<T>(items: readonly T[] | undefined, wanted: string, name: (item: T) => string): T | undefined {
  if (items === undefined) return undefined;
  for (let i = items.length - 1; i >= 0; i--) if (name(items[i]!) === wanted) return items[i];
  return undefined;
}

/** `items` by name, the last of a name winning. */
function byName<T>(items: readonly T[] | undefined, name: (item: T) => string): Map<string, T> {
  const out = new Map<string, T>();
  for (const item of items ?? []) out.set(name(item), item);
  return out;
}

function allObjects(world: World): RunRecord['finalObjects'] {
  const out: RunRecord['finalObjects'] = [];
  // a loop, not push(...list): spreading a list into a call overflows the stack past ~10^5 objects
  for (const k of world.store.kindNames().sort()) for (const o of world.store.peekAll(k)) out.push(o);
  return out;
}

/** The namespaces a real cluster has from its start. */
const CLUSTER_NAMESPACES = ['default', 'kube-node-lease', 'kube-public', 'kube-system'];

/**
 * The Namespace objects to seed: the cluster's own, and each namespace the scenario's objects
 * (initial, and created by the workload) live in, as the test's setup would have created it,
 * unless the scenario creates that Namespace itself. A namespace only a controller writes into
 * is not seeded: on a real cluster that create answers 404 until someone creates it.
 */
function namespacesOf(scenario: Scenario, store: World['store']): string[] {
  const objects: NewObject[] = [...scenario.initialObjects];
  for (const a of scenario.workload) if ((a.type === 'create' || a.type === 'apply' || a.type === 'recreate') && a.object !== undefined) objects.push(a.object);
  const created = new Set(objects.filter((o) => o.kind === 'Namespace').map((o) => o.metadata.name));
  const out = new Set(CLUSTER_NAMESPACES);
  for (const o of objects) {
    const ns = o.metadata.namespace;
    if (ns && o.kind !== 'Namespace' && store.namespaced(o.kind) !== false) out.add(ns);
  }
  return [...out].filter((ns) => !created.has(ns)).sort();
}

function createAsUser(world: World, obj: NewObject): void {
  try {
    declareCreated(world, obj, world.store.create('user', obj));
  } catch (err) {
    if (!isStoreError(err)) throw err;
    world.trace.push({ t: world.kernel.now(), type: 'user:action', action: 'create', kind: obj.kind, key: keyOf({ namespace: obj.metadata.namespace, name: obj.metadata.name ?? '' }), error: err.reason });
  }
}

/** The quiet tail's probes: extra reconciles of every key and re-applied identical specs. */
function poke(world: World): void {
  const { trace, kernel } = world;
  for (const m of world.managers) {
    for (const inst of m.live()) {
      for (const obj of world.store.peekAll(inst.def.for)) {
        const key = keyOf(obj.metadata);
        inst.enqueue(key);
      }
    }
  }
  const kinds = new Set(world.managers.map((m) => m.def.for));
  for (const kind of [...kinds].sort()) {
    for (const obj of world.store.peekAll(kind)) {
      if (obj.metadata.deletionTimestamp !== undefined) continue;
      runAction(world, { at: kernel.now(), type: 'reapply', kind, key: keyOf(obj.metadata) });
    }
  }
  trace.push({ t: kernel.now(), type: 'run:phase', phase: 'tail-pokes-sent' });
  // a second round after the first settles: duplicated events
  kernel.after(1000, () => {
    for (const m of world.managers) for (const inst of m.live()) for (const obj of world.store.peekAll(inst.def.for)) inst.enqueue(keyOf(obj.metadata));
  });
}

/** The names of the controllers that run as processes of their own, when any does. */
function programsOf(defs: readonly ControllerDefinition[]): { programs?: string[] } {
  const names = defs.filter((d) => d.process !== undefined).map((d) => d.name);
  return names.length > 0 ? { programs: names } : {};
}

/** `resyncFilteredBy` of a run's record: the controllers whose GenerationChanged predicate drops resyncs. */
function resyncFiltered(defs: readonly ControllerDefinition[]): { resyncFilteredBy?: string[] } {
  const names = defs.filter((d) => d.predicates.includes('GenerationChanged')).map((d) => d.name);
  return names.length > 0 ? { resyncFilteredBy: names } : {};
}
