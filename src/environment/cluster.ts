import type { EnvironmentActor } from '../harness/environment.js';
import { ScenarioError } from '../harness/simulate.js';
import type { World } from '../harness/world.js';
import type { JsonObject } from '../store/object.js';
import { deployment } from './deployment.js';
import { disruption } from './disruption.js';
import { isRecord } from './_internals/conditions.js';
import { job } from './job.js';
import { podLifecycle } from './pod-lifecycle.js';
import { pvcBinding } from './pvc-binding.js';
import { statefulSet } from './stateful-set.js';

const MEMBERS: readonly EnvironmentActor[] = [podLifecycle, pvcBinding, deployment, statefulSet, job, disruption];

/**
 * A small cluster in one entry: `pod-lifecycle`, `pvc-binding`, `deployment`, `stateful-set`,
 * `job` and `disruption` together (the lease holder is scenario-specific, so it is not included). Each
 * member's parameters go under its name: `{ name: 'cluster', params: { 'pod-lifecycle':
 * { readyMs: 500 } } }`. Writes are recorded per member (`environment:pod-lifecycle`, …).
 * @public
 */
export const cluster: EnvironmentActor = Object.freeze({
  name: 'cluster',
  description: `a small cluster: ${MEMBERS.map((m) => m.name).join(', ')}`,
  install(world: World, params: JsonObject): () => void {
    for (const k of Object.keys(params)) {
      if (!MEMBERS.some((m) => m.name === k)) {
        throw new ScenarioError(`steadystate.environment(cluster): "${k}" is not a member of the cluster (members: ${MEMBERS.map((m) => m.name).join(', ')}); put each member's parameters under its name.`);
      }
      if (!isRecord(params[k])) throw new ScenarioError(`steadystate.environment(cluster): params["${k}"] must be an object of that actor's parameters, got ${JSON.stringify(params[k])}`);
    }
    const undo: (() => void)[] = [];
    try {
      for (const m of MEMBERS) undo.push(m.install(world, (params[m.name] as JsonObject | undefined) ?? {}));
    } catch (err) {
      for (const u of undo.reverse()) u();
      throw err;
    }
    return () => {
      for (const u of undo.reverse()) u();
    };
  },
});
