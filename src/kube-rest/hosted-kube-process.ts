import type { ProcessHandle, ProcessReplica } from '../runtime/controller-process.js';
import type { RuntimeEnv } from '../runtime/env.js';
import type { TraceEntry } from '../sim/trace.js';
import { VIRTUAL_EPOCH_MS } from '../store/object.js';
import { CrashLoopBackoff, type ResolvedRestartBackoff } from '../host/crash-loop-backoff.js';
import { hostContext, type RunEscape } from '../host/host-context.js';
import { createSandbox, type Sandbox } from '../host/process-sandbox.js';
import { ProcessExitSignal } from '../host/exit-signal.js';
import { cleanStack, describeThrown, firstUserFrame } from '../host/stack.js';
import { holdTransport, KUBE_HOST, routeToken, type WireEvents } from './in-process-transport.js';
import { kubeconfigFor } from './kubeconfig.js';
import { writeKubeconfigFile } from './kubeconfig-file.js';
import { kubeWorldOf } from './kube-world.js';
import { IN_CLUSTER_ENV, serviceAccountFiles } from './service-account.js';
import type { ResourceDefinition } from './resource-definition.js';

/** The server of in-process kubeconfigs. @internal */
export const KUBE_SERVER = `https://${KUBE_HOST}`;

/** What an incarnation's code gets besides its sandbox: how to reach the simulated cluster. @internal */
export interface IncarnationContext {
  kubeconfig: string;
  token: string;
  kubeconfigPath: string;
  /** False once this incarnation ended (crash, exit, end of run). */
  readonly alive: boolean;
  /** Aborted when this incarnation ends. */
  readonly signal: AbortSignal;
}

/** How a hosted kube process runs. @internal */
export interface HostedKubeOptions {
  requestLatencyMs: number;
  resources: readonly ResourceDefinition[];
  backoff: ResolvedRestartBackoff;
  /**
   * Variables added to the incarnation's environment (over the host's and the in-cluster
   * `KUBERNETES_SERVICE_HOST`/`PORT`; KUBECONFIG is set last).
   */
  env: Readonly<Record<string, string>>;
  /** `process.argv` of the incarnation. */
  argv: readonly string[];
  /**
   * Starts the incarnation's code inside its sandbox. A rejection or throw ends the incarnation
   * like an uncaught exception; a returned function is called when it is stopped.
   */
  start(ctx: IncarnationContext, sandbox: Sandbox): unknown;
}

/** The host's environment when steadystate loaded, without its own in-cluster service variables (a host running in a pod). */
const hostEnv: Record<string, string | undefined> = (() => {
  const e = { ...process.env };
  for (const k of Object.keys(e)) if (k.startsWith('KUBERNETES_SERVICE_') || k.startsWith('KUBERNETES_PORT')) delete e[k];
  return e;
})();

/** Per world and actor: incarnations started, and the restart backoff. */
const replicasOf = new WeakMap<RuntimeEnv, Map<string, { incarnations: number; backoff: CrashLoopBackoff }>>();

/**
 * Starts one incarnation of a hosted process against the world's simulated API: a sandbox
 * (virtual timers and clocks, its own env and argv, output captured, exits turned into events),
 * a bearer token routed through the in-process transport, a kubeconfig file in `KUBECONFIG`
 * (`loadFromDefault()`), the in-cluster service variables and service-account files of a pod
 * (`loadFromCluster()`: the token, a CA and the namespace, virtual files only this incarnation
 * reads, nothing written under /var/run), and its wire traffic recorded (`http:request`, `watch:close`). When its code ends itself
 * (`process.exit`, an uncaught exception, an unhandled rejection) the death is a `process:exit`
 * trace entry and the runtime restarts the replica after the CrashLoopBackOff delay. The settle
 * phase does nothing to it: no relist, no stream is touched.
 * @internal
 */
export function startHostedKubeProcess(env: RuntimeEnv, replica: ProcessReplica, o: HostedKubeOptions): ProcessHandle {
  const { kernel, trace } = env;
  const scope = hostContext.getStore()?.scope;
  if (scope === undefined) throw new Error(`steadystate: the process of ${replica.actor} must start inside a simulation (simulate or check)`);
  const world = kubeWorldOf(env, o.requestLatencyMs, o.resources);
  if (world.slots.size === 0) world.release = holdTransport();
  const slot = `${replica.name}/${replica.replica}`;
  world.slots.add(slot);
  world.live.set(replica.actor, replica);
  let replicas = replicasOf.get(env);
  if (!replicas) replicasOf.set(env, (replicas = new Map()));
  let state = replicas.get(replica.actor);
  if (!state) replicas.set(replica.actor, (state = { incarnations: 0, backoff: new CrashLoopBackoff(o.backoff) }));
  const incarnation = ++state.incarnations;
  const backoff = state.backoff;
  const token = world.api.issueToken(replica.actor);
  const kubeconfig = kubeconfigFor({ server: KUBE_SERVER, token });
  const file = writeKubeconfigFile(`${replica.name}-${replica.replica}`, kubeconfig);
  const startedAt = kernel.now();
  const who = { controller: replica.name, replica: replica.replica };
  let alive = true;
  let recording = true;
  const aborted = new AbortController();
  /** Watches open now (path → opened at), for the record when the harness ends them. */
  const open = new Map<string, number>();
  // the slow variation's hold (ProcessHandle.hold): what would reach the process waits, in order
  let holds = 0;
  const waiting: (() => void)[] = [];
  const whenFree = (fn: () => void): void => {
    if (holds === 0) fn();
    else waiting.push(fn);
  };

  const sandbox = createSandbox({
    scope,
    incarnation,
    actor: replica.actor,
    clock: {
      now: () => kernel.now(),
      after(ms, fn) {
        const ev = kernel.after(ms, () => whenFree(fn));
        return () => {
          ev.cancelled = true;
        };
      },
      activity: () => kernel.external(),
    },
    epochMs: VIRTUAL_EPOCH_MS,
    // as in a pod: HOSTNAME names the replica, the API server's service is in the environment
    env: { ...hostEnv, HOSTNAME: `${replica.name}-${replica.replica}`, ...IN_CLUSTER_ENV, ...o.env, KUBECONFIG: file.path },
    argv: [...o.argv],
    // and the service account's token (this incarnation's), CA and namespace are mounted
    files: serviceAccountFiles(token),
    onOutput: (level, message) => {
      if (recording) trace.push({ t: kernel.now(), type: 'log', ...who, level, message });
    },
    onDeath: (e) => die(e),
  });

  const wire: WireEvents = {
    request(r) {
      if (!recording) return;
      if (r.watch && r.status === 200) open.set(r.path, r.startedAt);
      trace.push({ t: r.answeredAt, type: 'http:request', ...who, method: r.method, path: r.path, status: r.status, ms: r.answeredAt - r.startedAt, ...(r.watch ? { watch: true } : {}) });
    },
    watchEnd(w) {
      if (!recording) return;
      open.delete(w.path);
      trace.push({ t: w.endedAt, type: 'watch:close', ...who, path: w.path, openedAt: w.openedAt, by: w.by, how: w.how, events: w.events, ...(w.errors.length > 0 ? { errors: w.errors } : {}) });
    },
  };
  const removeRoute = routeToken(token, { api: world.api, now: () => kernel.now(), events: wire, sent: () => sandbox.noteWait(), held: () => holds > 0, whenFree });
  let stopFn: unknown;

  function kill(reason: 'crash' | 'shutdown' | 'exit'): void {
    if (!alive) return;
    alive = false;
    sandbox.kill();
    if (reason === 'crash') {
      // the harness killed the process (crash-restart fault): its connections go with it
      for (const [path, openedAt] of open) trace.push({ t: kernel.now(), type: 'watch:close', ...who, path, openedAt, by: 'harness', how: 'cut', why: 'the process was killed' });
    }
    open.clear();
    recording = false;
    if (world.live.get(replica.actor) === replica) world.live.delete(replica.actor);
    aborted.abort();
    removeRoute();
    file.remove();
    world.api.endWatches('cut', (w) => w.actor === replica.actor && !world.live.has(replica.actor));
    if (typeof stopFn === 'function') {
      try {
        const r = sandbox.run(() => (stopFn as () => unknown)());
        if (r instanceof Promise) r.catch(() => undefined);
      } catch {
        // a throwing stop must not take the run down; the process is gone anyway
      }
    }
    kernel.external();
  }

  function die(e: RunEscape): void {
    if (!alive) return;
    const now = kernel.now();
    const delay = backoff.next(startedAt, now);
    const at = firstUserFrame(e.stack);
    const last = sandbox.lastOutput;
    const entry: TraceEntry = { t: now, type: 'process:exit', ...who, incarnation, kind: e.kind, code: e.code, message: e.message, ...(e.where !== undefined ? { where: e.where } : {}), ...(last !== undefined ? { lastOutput: last } : {}), restartInMs: delay };
    // where it happened, for the verdict: not hashed (stack traces depend on source maps and paths, not on the run)
    Object.defineProperties(entry, { at: { value: at, enumerable: false }, stack: { value: e.stack, enumerable: false } });
    trace.push(entry);
    kill('exit');
    replica.crash(e.kind === 'exit' ? `exited with code ${e.code}` : `${e.kind === 'uncaught' ? 'uncaught exception' : 'unhandled rejection'}: ${e.message}`, delay);
  }

  const ctx: IncarnationContext = {
    kubeconfig,
    token,
    kubeconfigPath: file.path,
    get alive() {
      return alive;
    },
    signal: aborted.signal,
  };
  kernel.external();
  // an exception at start-up ends the process with code 1, as in Node
  const startupDeath = (err: unknown): void => {
    if (alive) sandbox.die({ t: kernel.now(), kind: 'uncaught', code: 1, message: describeThrown(err), ...(err instanceof Error && err.stack !== undefined ? { stack: cleanStack(err.stack)! } : {}), where: 'start-up' });
  };
  try {
    const r = sandbox.run(() => o.start(ctx, sandbox));
    if (r instanceof Promise) {
      r.then(
        (fn: unknown) => {
          kernel.external();
          if (alive) stopFn = fn;
          else if (typeof fn === 'function') sandbox.run(() => void Promise.resolve().then(fn as () => unknown).catch(() => undefined));
        },
        (err: unknown) => {
          if (!(err instanceof ProcessExitSignal)) startupDeath(err);
        },
      );
    } else stopFn = r;
  } catch (err) {
    if (!(err instanceof ProcessExitSignal)) startupDeath(err);
  }

  return {
    stop(reason) {
      kill(reason);
      if (reason === 'shutdown' && world.slots.delete(slot) && world.slots.size === 0) world.release();
    },
    // the settle phase repairs nothing for a hosted process: it only stops injecting faults
    relist() {},
    hold(on) {
      holds = Math.max(0, holds + (on ? 1 : -1));
      if (holds > 0) return;
      kernel.external();
      for (const fn of waiting.splice(0)) fn();
    },
    expireWatches(kind) {
      // no watch of that kind open (the client waits to re-watch after a cut): its resume is expired instead
      if (alive && world.api.endWatches('expire', (w) => w.actor === replica.actor && w.kind === kind) === 0) world.api.expireNextWatch(replica.actor, kind);
    },
  };
}
