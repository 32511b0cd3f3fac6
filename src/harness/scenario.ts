import type { JsonObject, NewObject } from '../store/object.js';
import type { FaultPlan } from './fault-plan.js';

/**
 * A timed user action of the workload (SPEC §4). `key` is `namespace/name` (or `name`).
 * @public
 */
export type WorkloadAction =
  | { at: number; type: 'create'; object: NewObject }
  | { at: number; type: 'update'; kind: string; key: string; spec: JsonObject }
  | { at: number; type: 'patch'; kind: string; key: string; patch: JsonObject }
  | { at: number; type: 'delete'; kind: string; key: string }
  | { at: number; type: 'reapply'; kind: string; key: string }
  | { at: number; type: 'removeFinalizer'; kind: string; key: string; finalizer: string };

/** Timing of a run (virtual ms). @public */
export interface ScenarioOptions {
  /** Faults act only before this time. @defaultValue 30_000 */
  faultWindowMs?: number;
  /** After the fault window (and the last user action): the settle phase length. @defaultValue 30_000 */
  settleMs?: number;
  /** Store write → informer delivery (virtual ms; > 0 so a write-triggered loop advances time). @defaultValue 1 */
  watchLatencyMs?: number;
  /** Crash → restart of a replica. @defaultValue 1000 */
  restartDelayMs?: number;
  /** Disconnect → re-watch. @defaultValue 1000 */
  rewatchDelayMs?: number;
  /** Force a relist of every informer when the settle phase starts. @defaultValue true */
  relistOnSettle?: boolean;
}

/** A controller taking part, by name (the code is passed to `simulate`/`check`). @public */
export interface ControllerRef {
  name: string;
  /** @defaultValue 1 */
  replicas?: number;
}

/** An environment actor taking part, by name, with its parameters. @public */
export interface EnvironmentRef {
  name: string;
  params?: JsonObject;
}

/**
 * A scenario: plain JSON that, with the controller code, fully determines a run.
 * @public
 */
export interface Scenario {
  /** Seeds every random decision of the run. */
  seed: number;
  controllers: ControllerRef[];
  environment?: EnvironmentRef[];
  /** Created by the user at t=0, before the controllers start. */
  initialObjects: NewObject[];
  workload: WorkloadAction[];
  faults: FaultPlan;
  options?: ScenarioOptions;
}

/** Options with defaults applied. @internal */
export type ResolvedScenarioOptions = Required<ScenarioOptions>;

/** @internal */
export function resolveScenarioOptions(o: ScenarioOptions | undefined): ResolvedScenarioOptions {
  return {
    faultWindowMs: o?.faultWindowMs ?? 30_000,
    settleMs: o?.settleMs ?? 30_000,
    watchLatencyMs: o?.watchLatencyMs ?? 1,
    restartDelayMs: o?.restartDelayMs ?? 1000,
    rewatchDelayMs: o?.rewatchDelayMs ?? 1000,
    relistOnSettle: o?.relistOnSettle ?? true,
  };
}
