import type { JsonObject } from '../store/object.js';
import type { ControllerProcess, ProcessHandle, ProcessReplica } from '../runtime/controller-process.js';
import { defineController, type ControllerDefinition } from '../runtime/define-controller.js';
import type { RuntimeEnv } from '../runtime/env.js';
import { resolveRestartBackoff, type ResolvedRestartBackoff, type RestartBackoffOptions } from '../host/crash-loop-backoff.js';
import { KUBE_SERVER, startHostedKubeProcess } from './hosted-kube-process.js';
import type { ResourceDefinition } from './resource-definition.js';

/** What a {@link kubeController}'s `start` receives: how to reach the simulated cluster. @public */
export interface KubeProcessContext {
  /**
   * A kubeconfig (JSON text) for this replica: server `https://steadystate.invalid`, a bearer
   * token that names it. `process.env.KUBECONFIG` points at a file with the same text, so
   * `kc.loadFromDefault()` works as well as `kc.loadFromString(ctx.kubeconfig)`.
   */
  readonly kubeconfig: string;
  readonly server: string;
  readonly token: string;
  /** `controller:<name>/<replica>`: the actor the API records this replica's writes as. */
  readonly actor: string;
  readonly replica: number;
  /** Virtual time (ms). `Date.now()` and `new Date()` are on the virtual clock too. */
  now(): number;
  /** Sleeps on the virtual clock (as `setTimeout` does in the process). Never resolves once this process died. */
  sleep(ms: number): Promise<void>;
  /** Aborted when this process stops (crash, exit, or end of run). */
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
  /** Starts the controller against the simulated cluster; returns (or resolves to) its stop function. */
  start(ctx: KubeProcessContext): KubeProcessStop | Promise<KubeProcessStop> | void | Promise<void>;
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
  /** Restarts after the process ends itself (exit, uncaught exception, unhandled rejection). @defaultValue CrashLoopBackOff: 10 s doubling to 5 min */
  restartBackoff?: RestartBackoffOptions;
  /** Variables added to the process's environment (KUBECONFIG is always the replica's). @defaultValue {} */
  env?: Record<string, string>;
}

/** Options every hosted kube process resolves the same way. @internal */
export interface ResolvedHostedOptions {
  requestLatencyMs: number;
  resources: readonly ResourceDefinition[];
  backoff: ResolvedRestartBackoff;
  env: Readonly<Record<string, string>>;
}

/** Validates what kubeController and defineProgram share. @internal */
export function resolveHostedOptions(o: { name: string; requestLatencyMs?: number; resources?: readonly ResourceDefinition[]; restartBackoff?: RestartBackoffOptions; env?: Record<string, string> }, where: string): ResolvedHostedOptions {
  const latency = o.requestLatencyMs ?? 5;
  if (typeof latency !== 'number' || !Number.isFinite(latency) || latency < 1) {
    throw new TypeError(`${where}({ name: ${JSON.stringify(o.name)} }): requestLatencyMs must be a number ≥ 1 (virtual ms), got ${JSON.stringify(o.requestLatencyMs)}; 0 would let a controller that loops through the API spin at one instant`);
  }
  if (o.env !== undefined && (o.env === null || typeof o.env !== 'object' || Object.values(o.env).some((v) => typeof v !== 'string'))) {
    throw new TypeError(`${where}({ name: ${JSON.stringify(o.name)} }): env must map variable names to strings, e.g. { LOG_LEVEL: 'debug' }`);
  }
  return { requestLatencyMs: latency, resources: [...(o.resources ?? [])], backoff: resolveRestartBackoff(o.restartBackoff, where), env: { ...(o.env ?? {}) } };
}

/**
 * A controller written against a real Kubernetes client (`@kubernetes/client-node`), as a value
 * `simulate` and `check` accept like one made by `defineController`. Each replica is a hosted
 * process: `start` runs with virtual `setTimeout`/`setInterval`/`setImmediate`, `Date` and
 * `performance.now()`, its own `process.env` (`KUBECONFIG` points at the replica's kubeconfig,
 * so `loadFromDefault()` works) and its console captured into the trace. Its requests go over
 * node's `http` to the simulated API, served in-process, and faults act at that layer: write
 * conflicts, 5xx/429, timeouts, watch events dropped, duplicated or delayed, watch streams cut
 * or expired (410), crashes between two requests (the process's later requests are never
 * answered; a fresh one starts after the restart delay). `process.exit`, an uncaught exception
 * or an unhandled rejection ends the incarnation (a `process:exit` trace entry, judged by
 * `never-exits`) and the replica restarts after a CrashLoopBackOff delay. The settle phase only
 * stops the faults: no stream is touched for the controller.
 *
 * Determinism: the client's own code runs on host macrotasks. The kernel keeps virtual time
 * still while the API reports activity (`Kernel.external`) and until 2 macrotasks pass without
 * any, so a client that reacts through promises, `process.nextTick` and timers replays exactly;
 * while real I/O it started is in flight (a file read, a DNS lookup) time waits for it too, up
 * to a bound. Real I/O and `Math.random` are not virtual.
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
 *   start() {
 *     const kc = new KubeConfig();
 *     kc.loadFromDefault();
 *     return runMyController(kc);
 *   },
 * });
 * @public
 */
export function kubeController(options: KubeControllerOptions): ControllerDefinition {
  const where = 'steadystate.kubeController';
  if (options === null || typeof options !== 'object') throw new TypeError(`${where}: expected an options object { name, for, start }, got ${String(options)}`);
  if (typeof options.start !== 'function') throw new TypeError(`${where}({ name: ${JSON.stringify(options.name)} }): "start" must be a function (ctx) => stop, starting the controller from ctx.kubeconfig`);
  const resolved = resolveHostedOptions(options, where);
  const process: ControllerProcess = {
    start: (env, replica) => startController(env, replica, options, resolved),
  };
  return hostedDefinition(options, process, where);
}

/** The definition of a hosted kube process: the runtime starts `process` instead of informers. @internal */
export function hostedDefinition(options: { name: string; for: string; sample?: JsonObject | JsonObject[] }, process: ControllerProcess, where: string): ControllerDefinition {
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

function never(): Promise<never> {
  return new Promise<never>(() => {});
}

function startController(env: RuntimeEnv, replica: ProcessReplica, options: KubeControllerOptions, resolved: ResolvedHostedOptions): ProcessHandle {
  const { kernel } = env;
  return startHostedKubeProcess(env, replica, {
    ...resolved,
    argv: [globalThis.process.argv0, options.name],
    start(inc) {
      const ctx: KubeProcessContext = {
        kubeconfig: inc.kubeconfig,
        server: KUBE_SERVER,
        token: inc.token,
        actor: replica.actor,
        replica: replica.replica,
        now: () => kernel.now(),
        sleep: (ms) =>
          inc.alive
            ? new Promise<void>((resolve) => {
                kernel.after(Math.max(0, ms), () => {
                  if (!inc.alive) return;
                  kernel.external();
                  resolve();
                });
              })
            : never(),
        signal: inc.signal,
      };
      return options.start(ctx);
    },
  });
}
