import type { Kernel } from '../sim/kernel.js';
import { thrownMessage } from '../sim/thrown.js';
import { keyOf, type JsonObject } from '../store/object.js';
import { writeCounters } from '../runtime/controller-client.js';
import type { ControllerProcess, ProcessHandle, ProcessReplica } from '../runtime/controller-process.js';
import { defineController, type ControllerDefinition } from '../runtime/define-controller.js';
import type { RuntimeEnv } from '../runtime/env.js';
import type { WriteInfo } from '../runtime/seams.js';
import { createKubeApi, type KubeApi } from './kube-api.js';
import type { KubeApiHost } from './kube-api-host.js';
import { kubeconfigFor } from './kubeconfig.js';
import { handleThroughMsw, holdKubeServer, KUBE_BASE_URL, routeKubeToken } from './msw.js';
import type { ResourceDefinition } from './resource-definition.js';
import type { KubeApiHooks, KubeRequestDecision, KubeRequestInfo } from './serve-context.js';

/** What a {@link kubeController}'s `start` receives: how to reach the simulated cluster. @public */
export interface KubeProcessContext {
  /**
   * A kubeconfig (JSON text) for this replica: server {@link KUBE_BASE_URL}, a bearer token that
   * names it. `const kc = new KubeConfig(); kc.loadFromString(ctx.kubeconfig);`
   */
  readonly kubeconfig: string;
  readonly server: string;
  readonly token: string;
  /** `controller:<name>/<replica>`: the actor the API records this replica's writes as. */
  readonly actor: string;
  readonly replica: number;
  /** Virtual time (ms). Use it instead of `Date.now()` so runs replay. */
  now(): number;
  /** Sleeps on the virtual clock (backoff, requeue delays). Never resolves once this process died. */
  sleep(ms: number): Promise<void>;
  /** Aborted when this process stops (crash, or end of run). */
  readonly signal: AbortSignal;
}

/** What `start` returns: stops everything the controller started. @public */
export type KubeProcessStop = () => void | Promise<void>;

/** Options of {@link kubeController}. @public */
export interface KubeControllerOptions {
  /** Unique name: the actor is `controller:<name>/<replica>`, as for `defineController`. */
  name: string;
  /** The primary kind (as stored, e.g. `'ConfigMap'` or a custom kind `'WebApp'`). */
  for: string;
  /** Starts the controller against `ctx.kubeconfig`; returns (or resolves to) its stop function. */
  start(ctx: KubeProcessContext): KubeProcessStop | Promise<KubeProcessStop>;
  /** Custom kinds the API must serve (besides built-ins and CRDs in the store). @defaultValue [] */
  resources?: readonly ResourceDefinition[];
  /** Example specs of the primary kind, for `check` (as `defineController`'s `sample`). @defaultValue [] */
  sample?: JsonObject | JsonObject[];
  /**
   * Virtual time every API request takes. At least 1, so that a controller that loops through
   * the API (a hot loop) moves virtual time instead of spinning at one instant.
   * @defaultValue 5
   */
  requestLatencyMs?: number;
}

/** The API of one world, shared by every kube controller in it. */
interface KubeWorld {
  api: KubeApi;
  /** The live incarnation of each actor (hooks find the replica by the request's actor). */
  live: Map<string, ProcessReplica>;
  /** Replica slots started and not yet shut down; the shared server is held while any is. */
  slots: Set<string>;
  release: () => void;
  registered: Set<string>;
}

const worlds = new WeakMap<RuntimeEnv, KubeWorld>();
/** Keeps tokens of worlds alive at the same time apart (tokens never enter a trace). */
let worldCounter = 0;

function kernelHost(kernel: Kernel): KubeApiHost {
  return {
    now: () => kernel.now(),
    after(ms, fn) {
      const ev = kernel.after(ms, () => {
        kernel.external();
        fn();
      });
      return () => {
        ev.cancelled = true;
      };
    },
    activity: () => kernel.external(),
  };
}

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
const PASS = { type: 'pass' } as const;

function errorReason(status: 500 | 503 | 429 | 504): string {
  return status === 429 ? 'TooManyRequests' : status === 503 ? 'ServiceUnavailable' : status === 504 ? 'Timeout' : 'InternalError';
}

function writeVerb(info: KubeRequestInfo): WriteInfo['verb'] {
  const status = info.subresource === 'status';
  switch (info.verb) {
    case 'update':
      return status ? 'updateStatus' : 'update';
    case 'patch':
      return status ? 'patchStatus' : 'patch';
    case 'create':
      return 'create';
    default:
      return 'delete';
  }
}

/** The world's fault seams, seen from the HTTP layer. */
function hooksOf(env: RuntimeEnv, world: () => KubeWorld): KubeApiHooks {
  const { seams, kernel, trace } = env;
  const keyOfInfo = (i: KubeRequestInfo): string => keyOf({ namespace: i.namespace, name: i.name ?? '' });
  const call = (r: ProcessReplica, i: KubeRequestInfo, phase: 'before' | 'after'): boolean => {
    if (!seams.hasCallHooks) return false;
    const write = WRITE_VERBS.has(i.verb);
    const writeSeq = writeCounters.get(env)?.get(r.name) ?? 0;
    const d = seams.decideCall({ t: kernel.now(), controller: r.name, replica: r.replica, phase, verb: i.verb, write, seq: r.callSeq++, writeSeq });
    if (d !== 'crash') return false;
    r.crash(`${phase} ${i.verb}`);
    return true;
  };
  return {
    onRequest(i): KubeRequestDecision | undefined {
      const r = world().live.get(i.actor);
      if (!r) return undefined;
      if (call(r, i, 'before')) return { type: 'hang' };
      if (i.verb === 'get' || i.verb === 'list' || i.verb === 'watch') {
        // GET, LIST and the watch connect reach the API server: api-error acts on them too
        const d = seams.hasReadHooks ? seams.decideRead({ t: kernel.now(), actor: i.actor, verb: i.verb, kind: i.kind, ...(i.name !== undefined ? { key: keyOfInfo(i) } : {}), cached: false, seq: seams.readSeq++ }) : PASS;
        const error = d.type === 'error' ? errorReason(d.status) : d.type === 'connection' ? (d.how === 'refused' ? 'ConnectionRefused' : 'ConnectionReset') : undefined;
        if (env.traceReads && i.verb !== 'watch') {
          trace.push({ t: kernel.now(), type: 'store:read', actor: i.actor, verb: i.verb, kind: i.kind, ...(i.name !== undefined ? { key: keyOfInfo(i) } : {}), cached: false, via: 'http', ...(error !== undefined ? { error, fault: 'api-error' } : {}) });
        }
        return d.type === 'error' ? d : d.type === 'connection' ? (d.how === 'refused' ? { type: 'refused' } : { type: 'reset', applied: false }) : undefined;
      }
      if (!WRITE_VERBS.has(i.verb) || !seams.hasWriteHooks) return undefined;
      const verb = writeVerb(i);
      const d = seams.decideWrite({ t: kernel.now(), actor: i.actor, verb, kind: i.kind, key: keyOfInfo(i), seq: seams.writeSeq++ });
      const error = d.type === 'error' ? errorReason(d.status) : d.type === 'connection' ? (d.how === 'refused' ? 'ConnectionRefused' : 'ConnectionReset') : undefined;
      if (error !== undefined) trace.push({ t: kernel.now(), type: 'store:write', actor: i.actor, verb, kind: i.kind, key: keyOfInfo(i), changed: [], noop: false, error, fault: 'api-error' });
      if (d.type === 'connection') return d.how === 'refused' ? { type: 'refused' } : { type: 'reset', applied: d.applied };
      return d.type === 'pass' ? undefined : d;
    },
    onResponse(i, status) {
      const r = world().live.get(i.actor);
      if (!r) return undefined;
      if (WRITE_VERBS.has(i.verb) && status < 300) {
        let counts = writeCounters.get(env);
        if (!counts) writeCounters.set(env, (counts = new Map()));
        counts.set(r.name, (counts.get(r.name) ?? 0) + 1);
      }
      return call(r, i, 'after') ? 'hang' : undefined;
    },
    onWatchEvent(i) {
      const r = world().live.get(i.actor);
      if (!r) return undefined;
      const seq = seams.watchSeq++;
      const d = seams.hasWatchHooks ? seams.decideWatch({ t: i.t, controller: r.name, replica: r.replica, kind: i.kind, event: i.event, seq }) : undefined;
      trace.push({ t: i.t, type: 'watch:event', controller: r.name, replica: r.replica, kind: i.kind, key: keyOf(i.event.object.metadata), event: i.event.type, rv: i.event.rv, decision: d?.type ?? 'deliver', seq, via: 'http' });
      return d;
    },
    onList(i) {
      if (!seams.hasListHooks || !world().live.has(i.actor)) return undefined;
      return seams.decideList({ t: i.t, actor: i.actor, kind: i.kind, count: i.count, seq: seams.listSeq++ });
    },
  };
}

function worldOf(env: RuntimeEnv, options: ResolvedKubeControllerOptions): KubeWorld {
  let w = worlds.get(env);
  if (!w) {
    const id = ++worldCounter;
    let self!: KubeWorld;
    const api = createKubeApi({
      store: env.store,
      host: kernelHost(env.kernel),
      hooks: hooksOf(env, () => self),
      requestLatencyMs: options.requestLatencyMs,
      watchLatencyMs: env.watchLatencyMs,
      tokenPrefix: `steadystate-w${id}-`,
    });
    self = { api, live: new Map(), slots: new Set(), release: () => {}, registered: new Set() };
    w = self;
    worlds.set(env, w);
  }
  for (const r of options.resources) {
    const id = `${r.group}/${r.version}/${r.plural}`;
    if (!w.registered.has(id)) {
      w.registered.add(id);
      w.api.resources.register(r);
    }
  }
  return w;
}

interface ResolvedKubeControllerOptions {
  requestLatencyMs: number;
  resources: readonly ResourceDefinition[];
}

function never(): Promise<never> {
  return new Promise<never>(() => {});
}

/**
 * A controller written against a real Kubernetes client (`@kubernetes/client-node`), as a value
 * `simulate` and `check` accept like one made by `defineController`. Each replica's `start`
 * gets a kubeconfig for the simulated API served in-process through msw; its informers and
 * writes go over HTTP, and faults act at that layer: write conflicts, 5xx/429, timeouts,
 * watch events dropped, duplicated or delayed, watch streams cut (the socket is destroyed) or
 * expired (410), crashes between two requests (the process's later requests are never
 * answered; a fresh one starts after the restart delay). The settle phase expires its watches,
 * which makes client-node informers relist.
 *
 * Determinism: the client's own code runs on host macrotasks. The kernel keeps virtual time
 * still while the API reports activity (`Kernel.external`) and until 16 macrotasks pass without
 * any, so a client that reacts through promises, `process.nextTick` and `setImmediate` replays
 * exactly. A client that waits on real timers (`setTimeout`), real I/O, `Date.now` or
 * `Math.random` does not: give it `ctx.sleep` and `ctx.now`.
 *
 * Known client behaviours (client-node 1.4): an informer stops for good on any error but a 410
 * (a cut watch, a 5xx on list) and emits `error`: the controller must restart it (after a
 * backoff); one that never does is caught by the watch-disconnect fault, which is a finding,
 * not a harness bug. Stopping an informer also emits an `error` (an AbortError). Informers
 * have no resync: a dropped event is repaired only by a relist.
 * @example
 * export const web = kubeController({
 *   name: 'web',
 *   for: 'ConfigMap',
 *   start(ctx) {
 *     const kc = new KubeConfig();
 *     kc.loadFromString(ctx.kubeconfig);
 *     return runMyController(kc, { sleep: ctx.sleep });
 *   },
 * });
 * @public
 */
export function kubeController(options: KubeControllerOptions): ControllerDefinition {
  const where = 'steadystate.kubeController';
  if (options === null || typeof options !== 'object') throw new TypeError(`${where}: expected an options object { name, for, start }, got ${String(options)}`);
  if (typeof options.start !== 'function') throw new TypeError(`${where}({ name: ${JSON.stringify(options.name)} }): "start" must be a function (ctx) => stop, starting the controller from ctx.kubeconfig`);
  const latency = options.requestLatencyMs ?? 5;
  if (typeof latency !== 'number' || !Number.isFinite(latency) || latency < 1) {
    throw new TypeError(`${where}({ name: ${JSON.stringify(options.name)} }): requestLatencyMs must be a number ≥ 1 (virtual ms), got ${JSON.stringify(options.requestLatencyMs)}; 0 would let a controller that loops through the API spin at one instant`);
  }
  const resolved: ResolvedKubeControllerOptions = { requestLatencyMs: latency, resources: [...(options.resources ?? [])] };
  const process: ControllerProcess = {
    start: (env, replica) => startProcess(env, replica, options, resolved),
  };
  return defineController({
    name: options.name,
    for: options.for,
    ...(options.sample !== undefined ? { sample: options.sample } : {}),
    resyncPeriodMs: 0,
    process,
    reconcile() {
      throw new Error(`${where}: "${options.name}" runs its own process; the runtime never calls reconcile`);
    },
  });
}

function startProcess(env: RuntimeEnv, replica: ProcessReplica, options: KubeControllerOptions, resolved: ResolvedKubeControllerOptions): ProcessHandle {
  const { kernel, trace } = env;
  const world = worldOf(env, resolved);
  if (world.slots.size === 0) world.release = holdKubeServer();
  const slot = `${replica.name}/${replica.replica}`;
  world.slots.add(slot);
  world.live.set(replica.actor, replica);
  const token = world.api.issueToken(replica.actor);
  let alive = true;
  const removeRoute = routeKubeToken(token, (request) => (alive ? handleThroughMsw(world.api, request) : never()));
  const aborted = new AbortController();
  let stopFn: KubeProcessStop | undefined;

  const callStop = (fn: KubeProcessStop): void => {
    try {
      void Promise.resolve(fn()).catch(() => {});
    } catch {
      // a throwing stop must not take the run down; the process is gone anyway
    }
  };
  const ctx: KubeProcessContext = {
    kubeconfig: kubeconfigFor({ server: KUBE_BASE_URL, token }),
    server: KUBE_BASE_URL,
    token,
    actor: replica.actor,
    replica: replica.replica,
    now: () => kernel.now(),
    sleep: (ms) =>
      alive
        ? new Promise<void>((resolve) => {
            kernel.after(Math.max(0, ms), () => {
              if (!alive) return;
              kernel.external();
              resolve();
            });
          })
        : never(),
    signal: aborted.signal,
  };
  kernel.external();
  const fail = (err: unknown): void => {
    trace.push({ t: kernel.now(), type: 'log', controller: replica.name, replica: replica.replica, level: 'error', message: `start failed: ${thrownMessage(err)}` });
  };
  try {
    const r = options.start(ctx);
    if (r instanceof Promise) {
      r.then(
        (fn) => {
          kernel.external();
          if (alive) stopFn = fn;
          else if (typeof fn === 'function') callStop(fn);
        },
        fail,
      );
    } else stopFn = r;
  } catch (err) {
    fail(err);
  }

  const kill = (): void => {
    if (!alive) return;
    alive = false;
    if (world.live.get(replica.actor) === replica) world.live.delete(replica.actor);
    aborted.abort();
    removeRoute();
    world.api.endWatches('cut', (w) => w.actor === replica.actor && !world.live.has(replica.actor));
    if (typeof stopFn === 'function') callStop(stopFn);
    kernel.external();
  };
  return {
    stop(reason) {
      kill();
      if (reason === 'shutdown' && world.slots.delete(slot) && world.slots.size === 0) world.release();
    },
    relist() {
      if (alive) world.api.endWatches('expire', (w) => w.actor === replica.actor);
    },
  };
}
