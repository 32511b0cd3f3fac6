import fc, { type Arbitrary } from 'fast-check';
import type { FaultGenContext, FaultModule } from '../harness/fault.js';
import type { ControllerRef, EnvironmentRef, Scenario, ScenarioOptions } from '../harness/scenario.js';
import { faultPlan } from './fault-plan.js';
import type { WorkloadAction } from '../harness/scenario.js';
import { storyKeys, type ResolvedStory } from '../harness/story.js';
import { storyActions } from './story.js';
import { resolveObjectTemplates, templateKey, workload, type ObjectTemplate, type ResolvedObjectTemplate, type WorkloadActionType } from './workload.js';

/** Options of {@link scenario}. @public */
export interface ScenarioArbitraryOptions {
  /** Controllers taking part (by name). */
  controllers: readonly ControllerRef[];
  /** Their primary kinds (fault generators target them). @defaultValue the templates' kinds */
  primaryKinds?: readonly string[];
  /** Environment actors taking part. @defaultValue [] */
  environment?: readonly EnvironmentRef[];
  /** Object templates of the generated workload (each with a `kind`); `[]` with a story generates no objects. */
  objects: readonly (ObjectTemplate | ResolvedObjectTemplate)[];
  /**
   * A story: its objects are every scenario's initial objects, its actions (times varied by its
   * jitter) are mixed with the generated workload, and fault generators target its objects too.
   * @defaultValue none
   */
  story?: ResolvedStory;
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
 * Whole scenarios: a seed, a workload over the object templates (and a story's objects and
 * actions) and a (swarm) fault plan, with sizes the caller bounds. Shrinks toward seed 0, fewer objects and actions, and fewer,
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
  const story = options.story;
  const generate = !story || options.objects.length > 0;
  const objects = generate ? resolveObjectTemplates(options.objects, undefined, 'steadystate.scenario', (i) => (i < 0 ? 'options.objects' : `options.objects[${i}]`)) : [];
  const plan = faultPlan({
    faults: options.faults ?? [],
    context: faultGenContext(options),
    ...(options.swarm !== undefined ? { swarm: options.swarm } : {}),
    maxEvents: options.maxFaultEvents ?? 4,
  });
  const generated = generate ? workload({ objects, maxObjects, maxActions, windowMs, ...(options.actions ? { actions: options.actions } : {}) }) : fc.constant<WorkloadAction[]>([]);
  const work = story ? fc.tuple(storyActions(story), generated).map(([told, made]) => mixed(told, made)) : generated;
  const initialObjects = story?.objects ?? [];
  const controllers = options.controllers.map((c) => ({ ...c }));
  const environment = options.environment?.map((e) => ({ ...e }));
  const scenarioOptions = options.options ? { ...options.options } : undefined;
  // faults first: fast-check shrinks keys in order, and turning fault kinds off makes every later candidate cheaper
  return fc.record({ faults: plan, workload: work, seed: fc.nat() }).map(
    (r): Scenario => ({
      seed: r.seed,
      controllers,
      ...(environment && environment.length > 0 ? { environment } : {}),
      initialObjects: [...initialObjects],
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
  const story = options.story;
  const generate = !story || options.objects.length > 0;
  const objects = generate ? resolveObjectTemplates(options.objects, undefined, 'steadystate.scenario', (i) => (i < 0 ? 'options.objects' : `options.objects[${i}]`)) : [];
  const keys: string[] = [];
  for (const t of objects) for (let i = 0; i < maxObjects; i++) keys.push(templateKey(t, i));
  const kinds = [...new Set([...(options.primaryKinds ?? []), ...objects.map((t) => t.kind)])];
  // the story's objects are the ones faults should hit: its primary objects, by their real names
  for (const k of story ? storyKeys(story) : []) if (kinds.includes(k.kind) && !keys.includes(k.key)) keys.push(k.key);
  return {
    controllers: options.controllers.map((c) => c.name),
    kinds,
    keys,
    faultWindowMs: options.options?.faultWindowMs ?? 30_000,
    maxNth: options.maxNth ?? Math.max(8, 3 * ((generate ? maxObjects + maxActions : 0) + (story ? story.objects.length + story.actions.length : 0))),
    ...(story && story.actions.length > 0 ? { userWrites: story.actions.length } : {}),
  };
}

/** The story's actions and the generated ones in one timeline (the story first among equal times). */
function mixed(told: readonly WorkloadAction[], made: readonly WorkloadAction[]): WorkloadAction[] {
  if (made.length === 0) return [...told];
  return [...told, ...made].map((a, i) => ({ a, i })).sort((x, y) => x.a.at - y.a.at || x.i - y.i).map((x) => x.a);
}
