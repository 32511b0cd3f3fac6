import type { EnvironmentActor } from '../harness/environment.js';
import { cluster } from './cluster.js';
import { deployment } from './deployment.js';
import { disruption } from './disruption.js';
import { job } from './job.js';
import { leaseHolder } from './lease-holder.js';
import { podLifecycle } from './pod-lifecycle.js';
import { pvcBinding } from './pvc-binding.js';
import { statefulSet } from './stateful-set.js';

/**
 * Every built-in environment actor, by its camelCase name (like `faults` and `properties`).
 * Scenarios name them by their kebab-case `name` (`pod-lifecycle`, `cluster`, …).
 * @public
 */
export const environment = {
  podLifecycle,
  pvcBinding,
  deployment,
  statefulSet,
  job,
  leaseHolder,
  disruption,
  cluster,
} as const;

/** Every built-in environment actor, in a stable order. @public */
export const allEnvironmentActors: readonly EnvironmentActor[] = Object.values(environment);

export { cluster, deployment, disruption, job, leaseHolder, podLifecycle, pvcBinding, statefulSet };
