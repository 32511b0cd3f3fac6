import type { PropagationPolicy } from './garbage-collector.js';

/**
 * The propagation policy of a DELETE that names none, by kind, as kube-apiserver's registry
 * strategies say (`DefaultGarbageCollectionPolicy`): `batch/v1` Jobs and core `v1`
 * ReplicationControllers orphan their dependents, kept for backward compatibility, so a Job
 * deleted without a policy leaves its Pods running; every other kind collects them in the
 * background. (kubectl and the garbage collector always name a policy; client libraries do not.)
 * @internal
 */
export function defaultPropagationPolicy(kind: string, apiVersion: string | undefined): PropagationPolicy {
  if (kind === 'Job' && (apiVersion === undefined || apiVersion === 'batch/v1')) return 'Orphan';
  if (kind === 'ReplicationController' && (apiVersion === undefined || apiVersion === 'v1')) return 'Orphan';
  return 'Background';
}

/** kube-apiserver's warning on a DELETE of a Job that names no policy (the `Warning` header). @internal */
export const JOB_ORPHAN_WARNING = 'child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning';
