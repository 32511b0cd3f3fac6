import { allEnvironmentActors } from '../../src/environment/index.js';
import { environmentPodNeverReady } from '../../faults/environment-pod-never-ready.js';
import { environmentCrashLoopingPod } from '../../faults/environment-crash-looping-pod.js';
import { environmentPodEviction } from '../../faults/environment-pod-eviction.js';
import { environmentPvcNeverBinds } from '../../faults/environment-pvc-never-binds.js';
import { environmentSlowRollout } from '../../faults/environment-slow-rollout.js';
import type { EnvironmentActor } from '../../src/harness/environment.js';
import type { FaultPlan } from '../../src/harness/fault-plan.js';
import type { Probe, RunRecord } from '../../src/harness/property.js';
import type { EnvironmentRef, Scenario, WorkloadAction } from '../../src/harness/scenario.js';
import { simulate, type SimulateOptions, type SimulationResult } from '../../src/harness/simulate.js';
import type { ControllerDefinition } from '../../src/runtime/define-controller.js';
import { fromVirtualTimestamp, keyOf, type JsonObject, type NewObject, type StoredObject } from '../../src/store/object.js';

export const envFaults = [environmentPodNeverReady, environmentCrashLoopingPod, environmentPodEviction, environmentPvcNeverBinds, environmentSlowRollout];

export interface EnvRun {
  environment: EnvironmentRef[];
  /** User actions (creates at their time). */
  workload: WorkloadAction[];
  initialObjects?: NewObject[];
  faults?: FaultPlan;
  controllers?: ControllerDefinition[];
  /** Extra actors besides the built-ins. */
  actors?: EnvironmentActor[];
  faultWindowMs?: number;
  settleMs?: number;
  seed?: number;
  options?: Partial<SimulateOptions>;
}

export function envScenario(r: EnvRun): Scenario {
  return {
    seed: r.seed ?? 1,
    controllers: (r.controllers ?? []).map((c) => ({ name: c.name })),
    environment: r.environment,
    initialObjects: r.initialObjects ?? [],
    workload: r.workload,
    faults: r.faults ?? { events: [], background: [] },
    options: { faultWindowMs: r.faultWindowMs ?? 10_000, settleMs: r.settleMs ?? 10_000 },
  };
}

/** Simulates environment actors (and optional controllers) with the built-in actors and environment faults. */
export function runEnv(r: EnvRun): Promise<SimulationResult> {
  return simulate(envScenario(r), { tailMs: 0, ...r.options, controllers: r.controllers ?? [], environment: [...(r.actors ?? []), ...allEnvironmentActors], faults: envFaults });
}

export function create(at: number, object: NewObject): WorkloadAction {
  return { at, type: 'create', object };
}

export function obj(kind: string, name: string, spec: JsonObject = {}, extra: Partial<NewObject['metadata']> = {}): NewObject {
  return { kind, metadata: { name, namespace: 'default', ...extra }, spec };
}

export function pod(name: string, spec: JsonObject = {}, extra: Partial<NewObject['metadata']> = {}): NewObject {
  return obj('Pod', name, { containers: [{ name: 'app', image: 'nginx' }], ...spec }, extra);
}

/** Times (virtual ms) at which an actor took that step (not the decisions that held it back), for a key. */
export function stepTimes(run: RunRecord, step: string, key?: string): number[] {
  return run.trace.filter((e) => e.type === 'environment:step' && e['step'] === step && e['decision'] === undefined && (key === undefined || e['key'] === key)).map((e) => e.t);
}

/** A condition's status and transition time (virtual ms). */
export function condition(o: StoredObject | undefined, type: string): { status: string; at: number } | undefined {
  const c = Array.isArray(o?.status['conditions']) ? (o!.status['conditions'] as JsonObject[]).find((x) => x['type'] === type) : undefined;
  if (!c) return undefined;
  return { status: String(c['status']), at: typeof c['lastTransitionTime'] === 'string' ? fromVirtualTimestamp(c['lastTransitionTime']) : NaN };
}

export function find(objects: readonly StoredObject[], kind: string, key: string): StoredObject | undefined {
  return objects.find((o) => o.kind === kind && keyOf(o.metadata) === key);
}

export function ofKind(objects: readonly StoredObject[], kind: string): StoredObject[] {
  return objects.filter((o) => o.kind === kind);
}

/** Writes by actors other than `environment:*` and `user` (the environment must never look like a controller). */
export function nonEnvironmentWrites(run: RunRecord): string[] {
  return run.writes.filter((w) => !w.actor.startsWith('environment:') && w.actor !== 'user').map((w) => `${w.actor} ${w.verb} ${w.kind} ${w.key}`);
}

/** A probe that records an object's status every `everyMs` (read back with {@link statusAt}). */
export function watchStatus(kind: string, key: string, everyMs: number): Probe {
  return { name: `status:${kind}:${key}`, everyMs, phases: ['faults', 'settle', 'tail'], fn: (view) => JSON.stringify(view.get(kind, key)?.status ?? null) };
}

/** The status a {@link watchStatus} probe saw at time `t`. */
export function statusAt(run: RunRecord, kind: string, key: string, t: number): JsonObject | null {
  const s = run.probes[`status:${kind}:${key}`]?.find((x) => x.t === t);
  if (!s) throw new Error(`no sample of ${kind} ${key} at t=${t}`);
  return JSON.parse(s.detail ?? 'null') as JsonObject | null;
}
