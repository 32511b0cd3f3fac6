import { keyOf, type StoredObject } from '../store/object.js';
import { findCondition, isRecord, specNumber, statusNumber } from './_internals/conditions.js';

/** Kinds {@link workloadReady} knows, in the order a report lists them. @public */
export const WORKLOAD_KINDS: readonly string[] = ['Deployment', 'StatefulSet', 'ReplicaSet', 'DaemonSet', 'Job', 'Pod', 'PersistentVolumeClaim'];

/**
 * Whether one workload object is ready by the rules its own controller reports (true), or why
 * not (a phrase naming the object and the fields): a Deployment has `Available=True` for its
 * current generation; a StatefulSet or ReplicaSet has all `spec.replicas` ready/available for
 * its current generation; a DaemonSet has `numberReady ≥ desiredNumberScheduled`; a Job is
 * `Complete`; a Pod is `Ready`; a PersistentVolumeClaim is `Bound`. Other kinds: a `Ready` or
 * `Available` condition with status True. Objects being deleted are not ready.
 * @example workloadReady(view.get('Deployment', 'default/web')!) // true, or "Deployment default/web: Available=False (1/3 available)"
 * @public
 */
export function workloadReady(o: StoredObject): true | string {
  // the name and the phrases are built only for an answer that needs them: this runs on every write a probe sees
  if (o.metadata.deletionTimestamp !== undefined) return `${nameOf(o)} is being deleted`;
  switch (o.kind) {
    case 'Deployment': {
      const c = findCondition(o, 'Available');
      if (c?.status !== 'True') return `${nameOf(o)}: Available=${c?.status ?? 'unset'} (${statusNumber(o, 'availableReplicas')}/${specNumber(o, 'replicas', 1)} available)`;
      return staleOrReady(o);
    }
    case 'StatefulSet':
    case 'ReplicaSet': {
      const field = o.kind === 'StatefulSet' ? 'readyReplicas' : 'availableReplicas';
      const want = specNumber(o, 'replicas', 1);
      const have = statusNumber(o, field);
      if (have < want) return `${nameOf(o)}: ${field} ${have}/${want}`;
      return staleOrReady(o);
    }
    case 'DaemonSet': {
      const want = statusNumber(o, 'desiredNumberScheduled');
      const have = statusNumber(o, 'numberReady');
      return have >= want ? staleOrReady(o) : `${nameOf(o)}: numberReady ${have}/${want}`;
    }
    case 'Job': {
      const c = findCondition(o, 'Complete');
      return c?.status === 'True' ? true : `${nameOf(o)}: not Complete (${statusNumber(o, 'succeeded')} succeeded, ${statusNumber(o, 'active')} active, ${statusNumber(o, 'failed')} failed)`;
    }
    case 'Pod': {
      const c = findCondition(o, 'Ready');
      if (c?.status === 'True') return true;
      const phase = typeof o.status['phase'] === 'string' ? o.status['phase'] : 'no phase';
      return `${nameOf(o)}: Ready=${c?.status ?? 'unset'} (${phase}${restarts(o)})`;
    }
    case 'PersistentVolumeClaim': {
      const phase = o.status['phase'];
      return phase === 'Bound' ? true : `${nameOf(o)}: phase ${typeof phase === 'string' ? phase : 'unset'}, not Bound`;
    }
    default: {
      const c = findCondition(o, 'Ready') ?? findCondition(o, 'Available');
      return c?.status === 'True' ? true : `${nameOf(o)}: ${c ? `${c.type}=${c.status}` : 'no Ready or Available condition'}`;
    }
  }
}

/** `Kind namespace/name`, as the phrases of {@link workloadReady} name an object. */
function nameOf(o: StoredObject): string {
  return `${o.kind} ${keyOf(o.metadata)}`;
}

/** Ready, unless its status was written for an older generation. */
function staleOrReady(o: StoredObject): true | string {
  const observed = statusNumber(o, 'observedGeneration');
  return observed < o.metadata.generation ? `${nameOf(o)}: status.observedGeneration ${observed} < generation ${o.metadata.generation} (its controller has not seen the latest spec)` : true;
}

function restarts(pod: StoredObject): string {
  const cs = pod.status['containerStatuses'];
  if (!Array.isArray(cs)) return '';
  let n = 0;
  for (const c of cs) if (isRecord(c) && typeof c['restartCount'] === 'number') n = Math.max(n, c['restartCount']);
  return n > 0 ? `, ${n} restarts` : '';
}
