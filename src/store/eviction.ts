import { InvalidError, NotFoundError, StoreError, TooManyRequestsError } from './errors.js';
import { budgetSelects, disruptedPodsOf, isBudget, MAX_DISRUPTED_PODS, PDB, podIsReady, statusInt, withDisruptionAllowed } from './disruption-budget.js';
import { keyOf, virtualTimestamp, type JsonObject, type StoredObject } from './object.js';
import type { DeleteOptions } from './store.js';
import type { StoreErrorReason } from './errors.js';

/**
 * A policy/v1 Eviction: what a drain tool posts to `pods/{name}/eviction` (client-go's
 * `PolicyV1().Evictions(ns).Evict`) to delete the Pod `metadata.name` unless its
 * PodDisruptionBudget forbids it. policy/v1beta1 is accepted too, as kube-apiserver does. @public
 */
export interface PodEviction {
  apiVersion?: string;
  kind?: string;
  metadata: {
    /** The Pod's name. */
    name: string;
    /** The Pod's namespace. */
    namespace?: string | undefined;
  };
  /** Options of the Pod's delete (preconditions, propagation); `dryRun: ['All']` checks the eviction and evicts nothing. */
  deleteOptions?: (DeleteOptions & { dryRun?: string[] }) | undefined;
}

/**
 * The actor the eviction's own write of a budget's status is recorded as: kube-apiserver makes it
 * through its loopback client (the audit log shows `system:apiserver`), not the caller.
 * @internal
 */
export const EVICTION_ACTOR = 'environment:eviction';

/** What an eviction needs of the store (its write path, so every write is recorded and watched). @internal */
export interface EvictionHost {
  now(): number;
  peek(kind: string, key: string): StoredObject | undefined;
  peekAll(kind: string): StoredObject[];
  updateStatus(actor: string, obj: StoredObject): StoredObject;
  delete(actor: string, kind: string, ref: { namespace?: string | undefined; name: string }, options: DeleteOptions): StoredObject;
  recordError(actor: string, kind: string, key: string, reason: StoreErrorReason, uid?: string): void;
  /** Runs `fn` with every write a dry run (the store's `dryRun`). */
  dryRun(fn: () => void): void;
}

const TOO_MANY = "Cannot evict pod as it would violate the pod's disruption budget.";
const CAUSE = 'DisruptionBudget';

/**
 * Evicts a Pod as kube-apiserver's EvictionREST (pkg/registry/core/pod/storage/eviction.go, 1.32)
 * does, or throws what it answers:
 * - a Pod that is Pending, Succeeded, Failed or already terminating is deleted without looking at
 *   budgets (it is no disruption, or one already under way);
 * - no budget selects the Pod: it is deleted;
 * - more than one does: 500, `This pod has more than one PodDisruptionBudget, …`;
 * - the one budget's status is for an older generation: 429 (`… is still being processed by the
 *   server`, Retry-After 10 s);
 * - an unready Pod (not Ready) is deleted without taking a disruption when the budget's
 *   `unhealthyPodEvictionPolicy` is AlwaysAllow, or (IfHealthyBudget, the default) when
 *   `currentHealthy >= desiredHealthy > 0`, with its resourceVersion as precondition (a 409 there
 *   is answered 429: it may have turned Ready);
 * - otherwise the budget must allow a disruption (`disruptionsAllowed` > 0, else 429 with a
 *   `DisruptionBudget` cause naming the healthy counts); the eviction takes it first, a status
 *   write of the budget (`disruptionsAllowed - 1`, the Pod in `disruptedPods` with the time), so a
 *   second eviction before the disruption controller recounts sees one fewer, and then deletes
 *   the Pod (a normal delete, with the request's deleteOptions).
 * The Pod's delete (or a refusal) is recorded as the caller's `delete` of the Pod.
 * @internal
 */
export function evictPod(host: EvictionHost, actor: string, eviction: PodEviction): void {
  const m = (eviction?.metadata ?? {}) as Partial<PodEviction['metadata']>;
  const name = typeof m.name === 'string' ? m.name : '';
  const namespace = typeof m.namespace === 'string' && m.namespace !== '' ? m.namespace : undefined;
  const key = keyOf({ namespace, name });
  if (namespace === undefined || name === '') {
    host.recordError(actor, 'Pod', key, 'Invalid');
    const field = namespace === undefined ? 'metadata.namespace' : 'metadata.name';
    throw new InvalidError(`Eviction "${key}": ${field}: Required value: an Eviction names the Pod it evicts by its namespace and name`, [{ field, type: 'FieldValueRequired', body: 'Required value' }]);
  }
  const opts = (eviction.deleteOptions ?? {}) as DeleteOptions & { dryRun?: unknown };
  if (Array.isArray(opts.dryRun) && opts.dryRun.length > 0) {
    // kube-apiserver's ValidateDryRun: All is the one value
    if (!opts.dryRun.every((v) => v === 'All')) {
      host.recordError(actor, 'Pod', key, 'Invalid');
      throw new InvalidError(`Eviction "${key}": deleteOptions.dryRun: Unsupported value: ${JSON.stringify(opts.dryRun)}: supported values: "All"`, [{ field: 'deleteOptions.dryRun', type: 'FieldValueNotSupported', body: 'Unsupported value' }]);
    }
    const { dryRun: _all, ...rest } = opts;
    host.dryRun(() => evictPod(host, actor, { ...eviction, deleteOptions: rest }));
    return;
  }
  const options: DeleteOptions = {
    ...(opts.preconditions !== undefined ? { preconditions: opts.preconditions } : {}),
    ...(opts.propagationPolicy !== undefined ? { propagationPolicy: opts.propagationPolicy } : {}),
  };
  const ref = { namespace, name };
  const pod = host.peek('Pod', key);
  if (!pod) {
    host.recordError(actor, 'Pod', key, 'NotFound');
    throw new NotFoundError(`Pod "${key}" not found`);
  }
  const phase = typeof pod.status['phase'] === 'string' ? pod.status['phase'] : 'Pending';
  const terminating = pod.metadata.deletionTimestamp !== undefined;
  // canIgnorePDB: a terminal or pending Pod, or one already terminating, is no (new) disruption
  if (phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || terminating) {
    markAndDelete(host, actor, pod, ref, options);
    return;
  }
  const budgets = host.peekAll(PDB).filter((b) => isBudget(b) && budgetSelects(b, pod));
  if (budgets.length > 1) {
    host.recordError(actor, 'Pod', key, 'InternalError', pod.metadata.uid);
    throw new StoreError('InternalError', 500, 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
  }
  const pdb = budgets[0];
  if (pdb === undefined) {
    markAndDelete(host, actor, pod, ref, options);
    return;
  }
  const refuse = (err: StoreError): never => {
    host.recordError(actor, 'Pod', key, err.reason, pod.metadata.uid);
    throw err;
  };
  const current = statusInt(pdb, 'currentHealthy');
  const desired = statusInt(pdb, 'desiredHealthy');
  const stillProcessing = () => new TooManyRequestsError(TOO_MANY, [{ type: CAUSE, message: `The disruption budget ${pdb.metadata.name} is still being processed by the server.` }], 10);
  if (!podIsReady(pod) && (pdb.spec['unhealthyPodEvictionPolicy'] === 'AlwaysAllow' || (current >= desired && desired > 0))) {
    // an unhealthy Pod is no disruption of a healthy budget: deleted without taking one, unless it turned Ready meanwhile
    const unconditional = options.preconditions?.resourceVersion === undefined;
    try {
      markAndDelete(host, actor, pod, ref, { ...options, preconditions: { ...options.preconditions, resourceVersion: options.preconditions?.resourceVersion ?? pod.metadata.resourceVersion } });
    } catch (err) {
      if (unconditional && err instanceof StoreError && err.reason === 'Conflict') throw stillProcessing();
      throw err;
    }
    return;
  }
  // checkAndDecrement
  if (statusInt(pdb, 'observedGeneration') < pdb.metadata.generation) refuse(stillProcessing());
  const allowed = statusInt(pdb, 'disruptionsAllowed');
  const disrupted = disruptedPodsOf(pdb);
  if (allowed < 0) refuse(new StoreError('Forbidden', 403, `poddisruptionbudget.policy "${pdb.metadata.name}" is forbidden: pdb disruptions allowed is negative`));
  if (Object.keys(disrupted).length > MAX_DISRUPTED_PODS) refuse(new StoreError('Forbidden', 403, `poddisruptionbudget.policy "${pdb.metadata.name}" is forbidden: DisruptedPods map too big - too many evictions not confirmed by PDB controller`));
  if (allowed === 0) refuse(new TooManyRequestsError(TOO_MANY, [{ type: CAUSE, message: `The disruption budget ${pdb.metadata.name} needs ${desired} healthy pods and has ${current} currently` }]));
  const now = host.now();
  const status: JsonObject = { ...pdb.status, disruptionsAllowed: allowed - 1, disruptedPods: { ...disrupted, [name]: virtualTimestamp(now) } };
  if (allowed - 1 === 0) status['conditions'] = withDisruptionAllowed(pdb.status['conditions'], 0, statusInt(pdb, 'observedGeneration'), now);
  host.updateStatus(EVICTION_ACTOR, { ...pdb, status });
  markAndDelete(host, actor, pod, ref, options);
}

/**
 * kube-apiserver's addConditionAndDeletePod (PodDisruptionConditions, GA in 1.31): the Pod gets the
 * `DisruptionTarget=True` condition (reason `EvictionByEvictionAPI`) through its status, then is
 * deleted; a resourceVersion precondition follows to the version that write made. A dry run marks
 * nothing (the store's dry run stores neither). A controller that tells an eviction from a crash
 * (a Job's podFailurePolicy, a drain tool) reads this condition on the Pod's last state.
 */
function markAndDelete(host: EvictionHost, actor: string, pod: StoredObject, ref: { namespace: string; name: string }, options: DeleteOptions): void {
  const conditions = Array.isArray(pod.status['conditions']) ? (pod.status['conditions'] as JsonObject[]) : [];
  const old = conditions.find((c) => c['type'] === 'DisruptionTarget');
  const now = virtualTimestamp(host.now());
  const condition: JsonObject = { type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting', lastTransitionTime: old !== undefined && old['status'] === 'True' && typeof old['lastTransitionTime'] === 'string' ? old['lastTransitionTime'] : now };
  const marked = host.updateStatus(EVICTION_ACTOR, { ...pod, status: { ...pod.status, conditions: [...conditions.filter((c) => c['type'] !== 'DisruptionTarget'), condition] } });
  const rv = options.preconditions?.resourceVersion;
  host.delete(actor, 'Pod', ref, rv === undefined ? options : { ...options, preconditions: { ...options.preconditions, resourceVersion: marked.metadata.resourceVersion } });
}
