import { z } from 'zod';
import type { NewObject } from '../store/object.js';
import { faultPlanSchema } from './fault-plan.js';
import { jsonObject, MAX_SCENARIO_MS, msSchema, nonEmpty, stringMap } from './schema-parts.js';
import { schemaProblem, shown } from './schema-problem.js';

export { MAX_SCENARIO_MS };

/**
 * The scenario file format (SPEC §4) as ONE zod schema: the TypeScript types below are inferred
 * from it, so a scenario that type-checks is exactly a scenario that validates, and every file
 * people hand-edit (reproductions, corpus entries, stories) is checked by the same rules, with
 * messages that name the JSON path.
 */

const ownerReferenceSchema = z.strictObject({
  apiVersion: z.string().exactOptional(),
  kind: nonEmpty('the owner kind'),
  name: nonEmpty('the owner name'),
  uid: z.string(),
  controller: z.boolean().exactOptional(),
  blockOwnerDeletion: z.boolean().exactOptional(),
});

/** What a user creates (NewObject): kind and a name are required; other top-level fields (ConfigMap `data`, …) are kept. @internal */
export const newObjectSchema = z
  .looseObject({
    apiVersion: z.string().exactOptional(),
    kind: nonEmpty('the object kind, e.g. "WebApp"'),
    metadata: z.strictObject(
      {
        name: z.string().optional(),
        generateName: z.string().optional(),
        namespace: z.string().optional(),
        labels: stringMap.optional(),
        annotations: stringMap.optional(),
        finalizers: z.array(z.string()).optional(),
        ownerReferences: z.array(ownerReferenceSchema).optional(),
        resourceVersion: z.string().optional(),
        uid: z.string().optional(),
      },
      { error: (i) => (i.input === undefined ? 'is required: { name, namespace?, labels?, … }' : `must be an object { name, namespace?, labels?, … }; got ${shown(i.input)}`) },
    ),
    spec: jsonObject.optional(),
    status: jsonObject.optional(),
  })
  .check((ctx) => {
    const m = ctx.value.metadata;
    const name = m.name ?? '';
    if (name === '' && (m.generateName ?? '') === '') ctx.issues.push({ code: 'custom', path: ['metadata', 'name'], message: 'is required: every object needs metadata.name (or metadata.generateName)', input: m.name });
    else if (name.includes('/')) ctx.issues.push({ code: 'custom', path: ['metadata', 'name'], message: `must not contain "/" (keys are namespace/name); got ${JSON.stringify(name)}`, input: name });
  }) as unknown as z.ZodType<NewObject>;

/** Whether a failed attempt is retried with backoff until accepted (kubectl apply in a loop, GitOps); `false`: one attempt. @internal */
const retry = z.literal(false, { error: (i) => `can only be false (one attempt instead of retrying until accepted; leave it out to retry); got ${shown(i.input)}` }).exactOptional();
const key = nonEmpty('an object key "namespace/name" (or "name" for cluster-scoped objects)');
const kind = nonEmpty('the object kind, e.g. "WebApp"');
const at = msSchema;

const actionSchemas = [
  z.strictObject({ at, type: z.literal('create'), object: newObjectSchema, retry }),
  z.strictObject({ at, type: z.literal('apply'), object: newObjectSchema, retry }),
  z.strictObject({ at, type: z.literal('update'), kind, key, spec: jsonObject, retry }),
  z.strictObject({ at, type: z.literal('patch'), kind, key, patch: jsonObject, retry }),
  z.strictObject({ at, type: z.literal('delete'), kind, key, propagationPolicy: z.enum(['Background', 'Foreground', 'Orphan'], { error: (i) => `must be 'Background', 'Foreground' or 'Orphan' (kubectl delete --cascade=background|foreground|orphan); got ${shown(i.input)}` }).exactOptional(), retry }),
  z.strictObject({ at, type: z.literal('reapply'), kind, key, retry }),
  z.strictObject({ at, type: z.literal('recreate'), kind, key, object: newObjectSchema.exactOptional(), retry }),
  z.strictObject({ at, type: z.literal('deleteOwned'), kind, owner: z.strictObject({ kind, key }), retry }),
  z.strictObject({ at, type: z.literal('removeFinalizer'), kind, key, finalizer: nonEmpty('the finalizer to remove'), retry }),
] as const;

/** Every user action type a workload may hold. @public */
export const USER_ACTION_TYPES = actionSchemas.map((s) => s.shape.type.value);

/** One user action: discriminated by `type`, with a message listing the types when it is unknown. @internal */
export const workloadActionSchema = z.discriminatedUnion('type', actionSchemas, {
  error: (i) => (i.code === 'invalid_union' ? `unknown action type ${shown((i.input as { type?: unknown } | undefined)?.type)}; the action types are ${USER_ACTION_TYPES.join(', ')}` : undefined),
});

/** Timing of a run. @internal */
export const scenarioOptionsSchema = z.strictObject({
  faultWindowMs: msSchema.exactOptional(),
  settleMs: msSchema.exactOptional(),
  watchLatencyMs: msSchema.exactOptional(),
  restartDelayMs: msSchema.exactOptional(),
  rewatchDelayMs: msSchema.exactOptional(),
  relistOnSettle: z.boolean().exactOptional(),
});

/** The scenario: plain JSON that, with the controller code, fully determines a run. @internal */
export const scenarioSchema = z.strictObject({
  seed: z.number({ error: (i) => `must be an integer seed; got ${shown(i.input)}` }).int({ error: (i) => `must be an integer seed; got ${shown(i.input)}` }),
  controllers: z.array(z.strictObject({ name: nonEmpty('a controller name'), replicas: z.number().int().min(1).max(64).exactOptional() })),
  environment: z.array(z.strictObject({ name: nonEmpty('an environment actor name'), params: jsonObject.exactOptional() })).exactOptional(),
  initialObjects: z.array(newObjectSchema),
  workload: z.array(workloadActionSchema),
  faults: faultPlanSchema,
  options: scenarioOptionsSchema.exactOptional(),
});

/**
 * A timed user action of the workload (SPEC §4). `key` is `namespace/name` (or `name`).
 * - `create`: create the object; `apply`: create it, or update it to this spec, labels and
 *   annotations when it exists (`kubectl apply`);
 * - `update`: replace the spec (a conditional update of what the user just read); `patch`: RFC
 *   7386 merge patch; `reapply`: write the identical object again;
 * - `delete` (with `propagationPolicy` `Foreground`, the object stays until the garbage collector
 *   has deleted what it owns, as `kubectl delete --cascade=foreground` and Argo CD do; `Orphan`
 *   leaves what it owns); `recreate`: delete, then create under the same name once the old incarnation is
 *   gone (with `object`, or a copy of the current one); `deleteOwned`: delete, out of band, the
 *   objects of `kind` the `owner` controls (a person deleting a Pod);
 * - `removeFinalizer`: remove one finalizer by hand.
 *
 * A failed attempt (409, 5xx, a timeout, AlreadyExists while the old incarnation terminates) is
 * retried with backoff until accepted, like `kubectl apply` in a loop or a GitOps tool; `retry:
 * false` makes it one attempt. Every attempt is a `user:action` trace entry.
 * @public
 */
export type WorkloadAction = z.infer<typeof workloadActionSchema>;

/** The type of a user action. @public */
export type UserActionType = WorkloadAction['type'];

/** Timing of a run (virtual ms): `faultWindowMs` (default 30 000), `settleMs` (30 000), `watchLatencyMs` (1), `restartDelayMs` (1000), `rewatchDelayMs` (1000), `relistOnSettle` (true). @public */
export type ScenarioOptions = z.infer<typeof scenarioOptionsSchema>;

/** A controller taking part, by name (the code is passed to `simulate`/`check`); `replicas` defaults to 1. @public */
export type ControllerRef = Scenario['controllers'][number];

/** An environment actor taking part, by name, with its parameters. @public */
export type EnvironmentRef = NonNullable<Scenario['environment']>[number];

/**
 * A scenario: plain JSON that, with the controller code, fully determines a run: `seed`,
 * `controllers`, `environment?`, `initialObjects` (created by the user at t=0, before the
 * controllers start), `workload`, `faults` and `options?`.
 * @public
 */
export type Scenario = z.infer<typeof scenarioSchema>;

/**
 * Validates a scenario (e.g. read from a file), with a one-paragraph message naming the JSON
 * path of the first problems and the fix.
 * @param value - parsed JSON
 * @param where - the call and file messages start with, e.g. `steadystate.replay: reports/x.json`
 * @param root - the JSON path of the value, e.g. `scenario`
 * @throws TypeError
 * @public
 */
export function parseScenario(value: unknown, where = 'steadystate', root = 'scenario'): Scenario {
  const r = scenarioSchema.safeParse(value, { reportInput: true });
  if (!r.success) throw new TypeError(schemaProblem(r.error, where, root));
  return r.data;
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
