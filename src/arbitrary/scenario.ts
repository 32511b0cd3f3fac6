import fc, { type Arbitrary } from 'fast-check';
import type { FaultGenContext, FaultModule } from '../harness/fault.js';
import type { ControllerRef, EnvironmentRef, Scenario, ScenarioOptions } from '../harness/scenario.js';
import { faultPlan } from './fault-plan.js';
import { resolveObjectTemplates, templateKey, workload, type ObjectTemplate, type ResolvedObjectTemplate, type WorkloadActionType } from './workload.js';

/** Options of {@link scenario}. @public */
export interface ScenarioArbitraryOptions {
  /** Controllers taking part (by name). */
  controllers: readonly ControllerRef[];
  /** Their primary kinds (fault generators target them). @defaultValue the templates' kinds */
  primaryKinds?: readonly string[];
  /** Environment actors taking part. @defaultValue [] */
  environment?: readonly EnvironmentRef[];
  /** Object templates of the workload (each with a `kind`). */
  objects: readonly (ObjectTemplate | ResolvedObjectTemplate)[];
  /** Fault kinds plans may use. @defaultValue [] */
  faults?: readonly FaultModule[];
  /** Swarm testing (a random subset of kinds per run) or every kind on. @defaultValue true */
  swarm?: boolean;
  /** @defaultValue 2 */
  maxObjects?: number;
  /** Workload actions besides the creates. @defaultValue 4 */
  maxActions?: number;
  /** Concrete fault events per plan. @defaultValue 4 */
  maxFaultEvents?: number;
  /** Upper bound of `nth` indices fault generators use. @defaultValue max(8, 3 × (maxObjects + maxActions)) */
  maxNth?: number;
  /** Workload action types. @defaultValue every type */
  actions?: readonly WorkloadActionType[];
  /** Timing copied into every scenario (`faultWindowMs` also bounds action and fault times). @defaultValue {} */
  options?: ScenarioOptions;
}

/**
 * Whole scenarios: a seed, a workload over the object templates and a (swarm) fault plan,
 * with sizes the caller bounds. Shrinks toward seed 0, fewer objects and actions, and fewer,
 * gentler faults.
 * @example
 * ```ts
 * const arb = scenario({ controllers: [{ name: 'web' }], objects: [template], faults: allFaults });
 * ```
 * @public
 */
export function scenario(options: ScenarioArbitraryOptions): Arbitrary<Scenario> {
  const maxObjects = options.maxObjects ?? 2;
  const maxActions = options.maxActions ?? 4;
  const windowMs = options.options?.faultWindowMs ?? 30_000;
  const objects = resolveObjectTemplates(options.objects, undefined, 'steadystate.scenario', (i) => (i < 0 ? 'options.objects' : `options.objects[${i}]`));
  const plan = faultPlan({
    faults: options.faults ?? [],
    context: faultGenContext(options),
    ...(options.swarm !== undefined ? { swarm: options.swarm } : {}),
    maxEvents: options.maxFaultEvents ?? 4,
  });
  const work = workload({ objects, maxObjects, maxActions, windowMs, ...(options.actions ? { actions: options.actions } : {}) });
  const controllers = options.controllers.map((c) => ({ ...c }));
  const environment = options.environment?.map((e) => ({ ...e }));
  const scenarioOptions = options.options ? { ...options.options } : undefined;
  // faults first: fast-check shrinks keys in order, and turning fault kinds off makes every later candidate cheaper
  return fc.record({ faults: plan, workload: work, seed: fc.nat() }).map(
    (r): Scenario => ({
      seed: r.seed,
      controllers,
      ...(environment && environment.length > 0 ? { environment } : {}),
      initialObjects: [],
      workload: r.workload,
      faults: r.faults,
      ...(scenarioOptions ? { options: scenarioOptions } : {}),
    }),
  );
}

/** What the fault generators of {@link scenario} know about its scenarios (guided search mutates plans with it too). @internal */
export function faultGenContext(options: ScenarioArbitraryOptions): FaultGenContext {
  const maxObjects = options.maxObjects ?? 2;
  const maxActions = options.maxActions ?? 4;
  const objects = resolveObjectTemplates(options.objects, undefined, 'steadystate.scenario', (i) => (i < 0 ? 'options.objects' : `options.objects[${i}]`));
  const keys: string[] = [];
  for (const t of objects) for (let i = 0; i < maxObjects; i++) keys.push(templateKey(t, i));
  return {
    controllers: options.controllers.map((c) => c.name),
    kinds: [...new Set([...(options.primaryKinds ?? []), ...objects.map((t) => t.kind)])],
    keys,
    faultWindowMs: options.options?.faultWindowMs ?? 30_000,
    maxNth: options.maxNth ?? Math.max(8, 3 * (maxObjects + maxActions)),
  };
}
