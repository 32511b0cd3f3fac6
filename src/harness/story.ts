import { z } from 'zod';
import { keyOf, type NewObject } from '../store/object.js';
import { msSchema } from './schema-parts.js';
import { newObjectSchema, workloadActionSchema, type WorkloadAction } from './scenario.js';
import { schemaProblem } from './schema-problem.js';

/** A story as the library takes it (part of the one scenario schema). @internal */
export const storySchema = z.strictObject(
  {
    objects: z.array(newObjectSchema).exactOptional(),
    actions: z.array(workloadActionSchema).exactOptional(),
    jitterMs: msSchema.exactOptional(),
  },
  { error: (i) => (i.code === 'invalid_type' ? 'must be a story { objects?, actions?, jitterMs? } (or, with the public check, the path of a story file)' : undefined) },
);

/**
 * A story (SPEC §4): the user's exact objects and timed actions, as in a bug report ("these
 * objects, then this change, then this delete"). `check` generates faults around it (swarm, every
 * kind), optionally varies the action times, and shrinks the story as well as the faults:
 * actions and objects the failure does not need are removed, and varied times move back to the
 * story's own. Names stay exactly as written, in the run and in reports.
 *
 * - `objects`: created by the user at t=0, before the controllers start;
 * - `actions`: timed user actions ({@link WorkloadAction}: create, apply, update, patch, delete,
 *   reapply, recreate, deleteOwned, removeFinalizer), retried with backoff until accepted unless
 *   `retry: false`;
 * - `jitterMs`: each action's time varies by up to ± this much in each run (the order of the
 *   story is kept); 0 runs the times as written.
 * @example
 * ```ts
 * const story: Story = {
 *   objects: [{ kind: 'WebApp', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 3 } }],
 *   actions: [
 *     { at: 2000, type: 'patch', kind: 'WebApp', key: 'default/web', patch: { spec: { replicas: 1 } } },
 *     { at: 5000, type: 'delete', kind: 'WebApp', key: 'default/web' },
 *   ],
 *   jitterMs: 500,
 * };
 * ```
 * @public
 */
export type Story = z.infer<typeof storySchema>;

/** A validated story, actions in time order (stable). @internal */
export interface ResolvedStory {
  objects: NewObject[];
  actions: WorkloadAction[];
  jitterMs: number;
}

/**
 * Validates a story with the scenario schema and a few rules of its own (no object twice).
 * @param where - names the call, e.g. `steadystate.check`
 * @param root - the JSON path of the story, e.g. `options.story`
 * @throws TypeError with a one-paragraph message naming the path and the fix
 * @internal
 */
export function resolveStory(value: unknown, where: string, root: string): ResolvedStory {
  const r = storySchema.safeParse(value, { reportInput: true });
  if (!r.success) throw new TypeError(schemaProblem(r.error, where, root));
  const objects = [...(r.data.objects ?? [])];
  const seen = new Map<string, number>();
  objects.forEach((o, i) => {
    const id = identity(o);
    const first = seen.get(id);
    if (first !== undefined) throw new TypeError(`${where}: ${root}.objects[${i}] is ${id} again (first at ${root}.objects[${first}]). Each object of a story is created once; change it later with an action (update, patch, apply).`);
    seen.set(id, i);
  });
  const actions = (r.data.actions ?? []).map((a, index) => ({ a, index })).sort((x, y) => x.a.at - y.a.at || x.index - y.index).map((x) => x.a);
  if (objects.length === 0 && actions.length === 0) throw new TypeError(`${where}: ${root} has neither objects nor actions. Give the objects the story starts with ({ objects: [...] }) and what the user does later ({ actions: [{ at, type, … }] }).`);
  return { objects, actions, jitterMs: r.data.jitterMs ?? 0 };
}

/** `Kind namespace/name` of an object, for messages. @internal */
export function identity(o: NewObject): string {
  return `${o.kind} ${keyOf({ namespace: o.metadata.namespace, name: o.metadata.name ?? o.metadata.generateName ?? '' })}`;
}

/** Keys (`namespace/name`) of the objects a story names, per kind: its objects and what its actions create. @internal */
export function storyKeys(story: ResolvedStory): { kind: string; key: string }[] {
  const out = new Map<string, { kind: string; key: string }>();
  const add = (kind: string, key: string) => out.set(`${kind} ${key}`, { kind, key });
  for (const o of story.objects) add(o.kind, keyOf({ namespace: o.metadata.namespace, name: o.metadata.name ?? '' }));
  for (const a of story.actions) {
    if (a.type === 'create' || a.type === 'apply') add(a.object.kind, keyOf({ namespace: a.object.metadata.namespace, name: a.object.metadata.name ?? '' }));
    else if (a.type === 'deleteOwned') add(a.owner.kind, a.owner.key);
    else add(a.kind, a.key);
  }
  return [...out.values()];
}
