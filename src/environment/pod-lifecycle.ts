import type { EnvironmentDecision } from '../harness/environment.js';
import { fnv1a } from '../sim/hash.js';
import { fromVirtualTimestamp, keyOf, virtualTimestamp, type Json, type JsonObject, type NewObject, type StoredObject } from '../store/object.js';
import { defineEnvironmentActor, type EnvironmentSyncContext, type EnvironmentSyncResult } from './define-environment-actor.js';
import { conditionSince, conditionsJson, conditionsOf, createdAt, isRecord, withConditions } from './_internals/conditions.js';
import { checkNumber, firstProblem } from './_internals/params.js';
import { RUN_MS_ANNOTATION, EXIT_CODE_ANNOTATION, isTerminal, podClaimNames } from './_internals/pods.js';

/**
 * Parameters of {@link podLifecycle}, in virtual ms. A pod created at t is scheduled at
 * t + scheduleMs, its containers run at + startMs, and it is Ready at + readyMs (defaults:
 * Pending at 0.1 s, Running at 1.1 s, Ready at 2.1 s).
 * @public
 */
export interface PodLifecycleParams extends JsonObject {
  /** Creation → scheduled to a node (PodScheduled=True, phase Pending). @defaultValue 100 */
  scheduleMs: number;
  /** Scheduled → containers running (image pull and start; phase Running). @defaultValue 1000 */
  startMs: number;
  /** Running → Ready (the readiness probe passes). @defaultValue 1000 */
  readyMs: number;
  /** Nodes pods are spread over (`node-0` …); siblings (one owner's pods) go to consecutive nodes. @defaultValue 3 */
  nodes: number;
  /** First crash-loop back-off; doubles per restart (kubelet: 10 s). @defaultValue 10_000 */
  crashBackoffMs: number;
  /** Back-off cap (kubelet: 5 min). @defaultValue 300_000 */
  crashBackoffMaxMs: number;
}

/**
 * The pod fields podLifecycle assigns from the cluster's state (which node, which address):
 * like a real scheduler's choices they depend on what else runs, so properties that compare end
 * states across runs (same-end-state, recovery) should mask them:
 * `properties.sameEndState({ masks: [...PLACEMENT_FIELDS] })`.
 * @public
 */
export const PLACEMENT_FIELDS: readonly string[] = ['spec.nodeName', 'status.hostIP', 'status.podIP'];

const DEFAULTS: PodLifecycleParams = { scheduleMs: 100, startMs: 1000, readyMs: 1000, nodes: 3, crashBackoffMs: 10_000, crashBackoffMaxMs: 300_000 };

type Ctx = EnvironmentSyncContext<PodLifecycleParams>;

interface ContainerStatus {
  name: string;
  ready: boolean;
  started: boolean;
  restartCount: number;
  state: JsonObject;
  lastState: JsonObject;
}

/**
 * The kubelet and scheduler for Pods, kwok-style: Pending → scheduled → Running → Ready with
 * `status.conditions` (PodScheduled, Initialized, ContainersReady, Ready), `containerStatuses`
 * and `restartCount`; container exits follow `spec.restartPolicy` (Always and OnFailure restart
 * with kubelet's doubling back-off, showing `CrashLoopBackOff`; Never fails the pod; once faults
 * stop, a container a fault crashed restarts at once instead of waiting out the back-off). A pod
 * whose PersistentVolumeClaims are not Bound stays unschedulable. A pod annotated
 * `steadystate.dev/run-ms: "N"` exits N ms after it started (with `steadystate.dev/exit-code`,
 * default 0): that is how Job pods complete.
 *
 * Steps faults act on: `pod:schedule`, `pod:start`, `pod:ready` (block = readiness probe
 * failing, fail = the container exits), `pod:run` (asked of Ready pods when a fault pokes
 * them: fail = exit, block = readiness lost).
 *
 * Known limits: one state for all containers of a pod, no init containers, no Node objects,
 * deletion is immediate (no graceful termination).
 * @public
 */
export const podLifecycle = defineEnvironmentActor<PodLifecycleParams>({
  name: 'pod-lifecycle',
  description: 'pods are scheduled, start and turn Ready after virtual delays; containers restart with back-off',
  defaults: DEFAULTS,
  validate: (p) =>
    firstProblem(
      checkNumber(p, 'scheduleMs'),
      checkNumber(p, 'startMs'),
      checkNumber(p, 'readyMs'),
      checkNumber(p, 'nodes', 1),
      checkNumber(p, 'crashBackoffMs'),
      checkNumber(p, 'crashBackoffMaxMs'),
    ),
  for: 'Pod',
  watches: [
    {
      // an unschedulable pod waits for its claims to bind
      kind: 'PersistentVolumeClaim',
      map: (pvc, read) =>
        read
          .list('Pod', { namespace: pvc.metadata.namespace })
          .filter((p) => podClaimNames(p).includes(pvc.metadata.name))
          .map((p) => keyOf(p.metadata)),
    },
  ],
  sync(ctx) {
    const pod = ctx.object;
    if (!pod || pod.metadata.deletionTimestamp !== undefined || isTerminal(pod)) return;
    const scheduledAt = conditionSince(pod, 'PodScheduled', 'True');
    if (scheduledAt === undefined) return schedule(ctx, pod);
    const cs = containerStatuses(pod);
    const running = runningSince(cs[0]);
    if (running === undefined) return start(ctx, pod, scheduledAt, cs);
    return whileRunning(ctx, pod, running, cs);
  },
});

function schedule(ctx: Ctx, pod: StoredObject): EnvironmentSyncResult {
  const now = ctx.now();
  const due = createdAt(pod) + ctx.params.scheduleMs;
  if (now < due) return { afterMs: due - now };
  // a gated Pod waits, unbound, until its gates are removed (kube-scheduler's SchedulingGated)
  if (Array.isArray(pod.spec['schedulingGates']) && pod.spec['schedulingGates'].length > 0 && typeof pod.spec['nodeName'] !== 'string') {
    ctx.patchStatus('Pod', ctx.key, { status: { phase: 'Pending', conditions: conditionsJson(withConditions(conditionsOf(pod), [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates' }], now)) } });
    return undefined;
  }
  const unbound = podClaimNames(pod).filter((c) => ctx.get('PersistentVolumeClaim', keyOf({ namespace: pod.metadata.namespace, name: c }))?.status['phase'] !== 'Bound');
  if (unbound.length > 0) return unschedulable(ctx, pod, `pod has unbound immediate PersistentVolumeClaims (${unbound.join(', ')})`);
  const d = ctx.decide('pod:schedule', pod);
  if (d.type === 'delay') return { afterMs: d.ms };
  if (d.type !== 'proceed') {
    unschedulable(ctx, pod, `0/${ctx.params.nodes} nodes are available (${d.type === 'fail' ? d.reason : 'held by an injected fault'})`);
    return blocked(ctx, d);
  }
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const place = placement(ctx, pod);
  const node = typeof spec['nodeName'] === 'string' ? spec['nodeName'] : place.node;
  // kube-scheduler binds through the pods/binding subresource (an update may not set nodeName); a refused binding is looked at again
  if (spec['nodeName'] !== node && ctx.create({ apiVersion: 'v1', kind: 'Binding', metadata: { name: pod.metadata.name, namespace: pod.metadata.namespace }, target: { kind: 'Node', name: node } } as unknown as NewObject) === undefined) return;
  const nodeIndex = Number(/(\d+)$/.exec(node)?.[1] ?? 0);
  ctx.patchStatus('Pod', ctx.key, {
    status: {
      phase: 'Pending',
      hostIP: `10.0.0.${(nodeIndex % 254) + 1}`,
      podIP: place.ip,
      conditions: conditionsJson(
        withConditions(
          conditionsOf(pod),
          [
            { type: 'PodScheduled', status: 'True' },
            { type: 'Initialized', status: 'True' },
            { type: 'ContainersReady', status: 'False', reason: 'ContainersNotReady' },
            { type: 'Ready', status: 'False', reason: 'ContainersNotReady' },
          ],
          now,
        ),
      ),
      containerStatuses: containerNames(pod).map((name) => ({ name, ready: false, started: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } }, lastState: {} })),
    },
  });
  ctx.record('pod:scheduled', { key: ctx.key, node });
  return { afterMs: ctx.params.startMs };
}

function start(ctx: Ctx, pod: StoredObject, scheduledAt: number, cs: ContainerStatus[]): EnvironmentSyncResult {
  const now = ctx.now();
  const restarts = cs[0]?.restartCount ?? 0;
  const finished = terminatedAt(cs[0]?.lastState);
  // once faults stop, a container a fault crashed restarts at once: the settle phase heals the
  // cluster, and kubelet's back-off (minutes) would otherwise outlast it
  const healed = injected(cs[0]?.lastState) && !ctx.faultsActive();
  const due = restarts > 0 && finished !== undefined ? finished + (healed ? 0 : backoff(ctx, restarts)) : scheduledAt + ctx.params.startMs;
  if (now < due) return { afterMs: due - now };
  const d = ctx.decide('pod:start', pod, restarts);
  if (d.type === 'delay') return { afterMs: d.ms };
  if (d.type === 'block') return blocked(ctx, d);
  if (d.type === 'fail') return exit(ctx, pod, cs, now, 1, d.reason, true);
  const startedAt = virtualTimestamp(now);
  ctx.patchStatus('Pod', ctx.key, {
    status: {
      phase: 'Running',
      ...(typeof pod.status['startTime'] === 'string' ? {} : { startTime: startedAt }),
      conditions: conditionsJson(withConditions(conditionsOf(pod), [{ type: 'ContainersReady', status: 'False', reason: 'ContainersNotReady' }, { type: 'Ready', status: 'False', reason: 'ContainersNotReady' }], now)),
      containerStatuses: cs.map((c) => ({ ...c, ready: false, started: true, state: { running: { startedAt } } }) as unknown as JsonObject),
    },
  });
  ctx.record('pod:running', { key: ctx.key, restarts });
  const runMs = runFor(pod);
  return { afterMs: Math.min(ctx.params.readyMs, runMs ?? Infinity) };
}

function whileRunning(ctx: Ctx, pod: StoredObject, since: number, cs: ContainerStatus[]): EnvironmentSyncResult {
  const now = ctx.now();
  const restarts = cs[0]?.restartCount ?? 0;
  const runMs = runFor(pod);
  if (runMs !== undefined && now >= since + runMs) {
    const code = Number(pod.metadata.annotations[EXIT_CODE_ANNOTATION] ?? 0);
    return exit(ctx, pod, cs, now, Number.isInteger(code) ? code : 1, code === 0 ? 'Completed' : 'Error');
  }
  const untilExit = runMs !== undefined ? since + runMs - now : Infinity;
  const ready = cs.length > 0 && cs.every((c) => c.ready);
  if (ready) {
    // only asked when something looks again (a fault pokes pods): a healthy pod costs nothing
    const d = ctx.decide('pod:run', pod, restarts);
    if (d.type === 'fail') return exit(ctx, pod, cs, now, 1, d.reason, true);
    if (d.type === 'block') {
      setReady(ctx, pod, cs, false, now);
      ctx.record('pod:unready', { key: ctx.key });
      return blocked(ctx, d, untilExit);
    }
    return finite(untilExit);
  }
  const due = since + ctx.params.readyMs;
  if (now < due) return { afterMs: Math.min(due - now, untilExit) };
  const d = ctx.decide('pod:ready', pod, restarts);
  if (d.type === 'delay') return { afterMs: Math.min(d.ms, untilExit) };
  if (d.type === 'block') return blocked(ctx, d, untilExit);
  if (d.type === 'fail') return exit(ctx, pod, cs, now, 1, d.reason, true);
  setReady(ctx, pod, cs, true, now);
  ctx.record('pod:ready', { key: ctx.key, restarts });
  return finite(untilExit);
}

function setReady(ctx: Ctx, pod: StoredObject, cs: ContainerStatus[], ready: boolean, now: number): void {
  const s = ready ? 'True' : 'False';
  const reason = ready ? {} : { reason: 'ContainersNotReady' };
  ctx.patchStatus('Pod', ctx.key, {
    status: {
      conditions: conditionsJson(withConditions(conditionsOf(pod), [{ type: 'ContainersReady', status: s, ...reason }, { type: 'Ready', status: s, ...reason }], now)),
      containerStatuses: cs.map((c) => ({ ...c, ready }) as unknown as JsonObject),
    },
  });
}

/** A container exit, handled by `spec.restartPolicy` (default Always). */
function exit(ctx: Ctx, pod: StoredObject, cs: ContainerStatus[], now: number, exitCode: number, reason: string, byFault = false): EnvironmentSyncResult {
  const policy = typeof pod.spec['restartPolicy'] === 'string' ? pod.spec['restartPolicy'] : 'Always';
  const restart = policy === 'Always' || (policy === 'OnFailure' && exitCode !== 0);
  const finishedAt = virtualTimestamp(now);
  const terminated = (c: ContainerStatus): JsonObject => ({ terminated: { exitCode, reason, ...(byFault ? { message: INJECTED } : {}), finishedAt, ...(typeof c.state['running'] === 'object' && c.state['running'] !== null ? { startedAt: (c.state['running'] as JsonObject)['startedAt'] ?? finishedAt } : {}) } });
  if (restart) {
    const restarts = (cs[0]?.restartCount ?? 0) + 1;
    const wait = backoff(ctx, restarts);
    ctx.patchStatus('Pod', ctx.key, {
      status: {
        conditions: conditionsJson(withConditions(conditionsOf(pod), [{ type: 'ContainersReady', status: 'False', reason: 'ContainersNotReady' }, { type: 'Ready', status: 'False', reason: 'ContainersNotReady' }], now)),
        containerStatuses: cs.map((c) => ({ ...c, ready: false, started: false, restartCount: restarts, lastState: terminated(c), state: { waiting: { reason: 'CrashLoopBackOff', message: `back-off ${Math.round(wait / 1000)}s restarting failed container ${c.name}` } } }) as unknown as JsonObject),
      },
    });
    ctx.record('pod:crash', { key: ctx.key, exitCode, reason, restarts });
    return { afterMs: wait };
  }
  const phase = exitCode === 0 ? 'Succeeded' : 'Failed';
  ctx.patchStatus('Pod', ctx.key, {
    status: {
      phase,
      conditions: conditionsJson(withConditions(conditionsOf(pod), [{ type: 'ContainersReady', status: 'False', reason: phase === 'Succeeded' ? 'PodCompleted' : 'PodFailed' }, { type: 'Ready', status: 'False', reason: phase === 'Succeeded' ? 'PodCompleted' : 'PodFailed' }], now)),
      containerStatuses: cs.map((c) => ({ ...c, ready: false, started: false, state: terminated(c) }) as unknown as JsonObject),
    },
  });
  ctx.record('pod:exit', { key: ctx.key, exitCode, phase });
  return undefined;
}

function unschedulable(ctx: Ctx, pod: StoredObject, message: string): EnvironmentSyncResult {
  ctx.patchStatus('Pod', ctx.key, {
    status: { phase: 'Pending', conditions: conditionsJson(withConditions(conditionsOf(pod), [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message }], ctx.now())) },
  });
  return undefined;
}

/** A held step: look again when the hold ends (or when faults stop, which re-syncs every pod). */
function blocked(ctx: Ctx, d: EnvironmentDecision, cap = Infinity): EnvironmentSyncResult {
  const until = d.type === 'block' && d.untilMs !== undefined ? Math.max(0, d.untilMs - ctx.now()) : Infinity;
  return finite(Math.min(until, cap));
}

function finite(ms: number): EnvironmentSyncResult {
  return Number.isFinite(ms) ? { afterMs: Math.max(0, ms) } : undefined;
}

function backoff(ctx: Ctx, restarts: number): number {
  return Math.min(ctx.params.crashBackoffMs * 2 ** Math.max(0, restarts - 1), ctx.params.crashBackoffMaxMs);
}

/**
 * Where a pod runs and its IP, from its identity rather than from the run's history, so that end
 * states compare across runs (a fault-free twin, a replay): pods of one owner (one
 * `generateName`, or one fixed name) take the lowest free slot among their live siblings; slot
 * k runs on node (hash + k) mod nodes, so siblings spread over the nodes, and gets the k-th
 * address of the owner's range.
 */
function placement(ctx: Ctx, pod: StoredObject): { node: string; ip: string } {
  const group = `${pod.metadata.namespace ?? ''}/${pod.metadata.generateName ?? pod.metadata.name}`;
  const h = fnv1a(group);
  const prefix = `10.${(h >>> 8) & 255}.${h & 255}.`;
  const used = new Set<string>();
  for (const p of ctx.list('Pod', { namespace: pod.metadata.namespace })) {
    if (keyOf(p.metadata) === ctx.key || isTerminal(p) || typeof p.status['podIP'] !== 'string') continue;
    if (`${p.metadata.namespace ?? ''}/${p.metadata.generateName ?? p.metadata.name}` === group) used.add(p.status['podIP']);
  }
  let slot = 0;
  while (used.has(`${prefix}${(slot % 254) + 1}`) && slot < 254) slot++;
  return { node: `node-${(h + slot) % ctx.params.nodes}`, ip: `${prefix}${(slot % 254) + 1}` };
}

function containerNames(pod: StoredObject): string[] {
  const cs = pod.spec['containers'];
  const names = Array.isArray(cs) ? cs.map((c) => (isRecord(c) && typeof c['name'] === 'string' ? c['name'] : '')).filter((n) => n !== '') : [];
  return names.length > 0 ? names : ['main'];
}

function containerStatuses(pod: StoredObject): ContainerStatus[] {
  const raw = pod.status['containerStatuses'];
  const have: JsonObject[] = [];
  if (Array.isArray(raw)) for (const x of raw as unknown[]) if (isRecord(x)) have.push(x);
  return containerNames(pod).map((name) => {
    const c: JsonObject = have.find((x) => x['name'] === name) ?? {};
    return {
      name,
      ready: c['ready'] === true,
      started: c['started'] === true,
      restartCount: typeof c['restartCount'] === 'number' ? c['restartCount'] : 0,
      state: isRecord(c['state']) ? (c['state'] as JsonObject) : {},
      lastState: isRecord(c['lastState']) ? (c['lastState'] as JsonObject) : {},
    };
  });
}

function runningSince(c: ContainerStatus | undefined): number | undefined {
  const r = c?.state['running'];
  const at = isRecord(r) ? r['startedAt'] : undefined;
  return typeof at === 'string' ? fromVirtualTimestamp(at) : undefined;
}

function terminatedAt(state: JsonObject | undefined): number | undefined {
  const t = state?.['terminated'];
  const at = isRecord(t) ? (t as Record<string, Json>)['finishedAt'] : undefined;
  return typeof at === 'string' ? fromVirtualTimestamp(at) : undefined;
}

const INJECTED = 'injected by steadystate';

function injected(state: JsonObject | undefined): boolean {
  const t = state?.['terminated'];
  return isRecord(t) && t['message'] === INJECTED;
}

function runFor(pod: StoredObject): number | undefined {
  const v = pod.metadata.annotations[RUN_MS_ANNOTATION];
  if (v === undefined) return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}
