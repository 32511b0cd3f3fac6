import { keyOf, type Json, type JsonObject, type StoredObject } from '../../store/object.js';
import { matchesSelector, parseSelector, type LabelSelector, type Requirement } from '../../store/selector.js';
import type { EnvironmentApi, EnvironmentReader, EnvironmentWatch } from '../define-environment-actor.js';
import { isRecord } from './conditions.js';
import { controllerRef } from './pods.js';

/**
 * kube-controller-manager's ControllerRefManager (ClaimPods, ClaimReplicaSets): a workload
 * controller adopts the orphans its selector matches (no controlling ownerReference, not being
 * deleted) by adding itself as their controller, and releases the objects it controls that its
 * selector no longer matches. A Deployment deleted with `--cascade=orphan` and created again takes
 * its ReplicaSets back, and they their Pods; without it the new one made a second set beside them.
 */

/** The owner's `spec.selector` as requirements; undefined when it has none that selects (no claiming then). */
export function selectorOf(owner: StoredObject): Requirement[] | undefined {
  const sel = owner.spec['selector'];
  if (!isRecord(sel)) return undefined;
  try {
    const reqs = parseSelector(sel as LabelSelector);
    // an empty selector is refused for apps/v1 workloads: never "adopt everything"
    return reqs.length > 0 ? reqs : undefined;
  } catch {
    return undefined;
  }
}

function controllerOf(o: StoredObject): string | undefined {
  for (const r of o.metadata.ownerReferences) if (r.controller === true) return r.uid;
  return undefined;
}

/**
 * Adopts the orphans of `kind` in the owner's namespace that its selector matches (and `member`,
 * when given, accepts: a StatefulSet takes only Pods named after it), and releases those it controls
 * that the selector no longer matches. Writes as the environment; an object gone meanwhile is skipped.
 */
export function claim(api: Pick<EnvironmentApi<JsonObject>, 'list' | 'patch'>, owner: StoredObject, kind: string, member?: (o: StoredObject) => boolean): void {
  if (owner.metadata.deletionTimestamp !== undefined) return;
  const reqs = selectorOf(owner);
  if (reqs === undefined) return;
  const uid = owner.metadata.uid;
  for (const o of api.list(kind, { namespace: owner.metadata.namespace })) {
    const ctl = controllerOf(o);
    const matches = matchesSelector(reqs, o.metadata.labels) && (member === undefined || member(o));
    if (ctl === undefined && matches && o.metadata.deletionTimestamp === undefined) {
      api.patch(kind, keyOf(o.metadata), { metadata: { ownerReferences: [...o.metadata.ownerReferences, controllerRef(owner)] as unknown as Json[] } });
    } else if (ctl === uid && !matches) {
      api.patch(kind, keyOf(o.metadata), { metadata: { ownerReferences: o.metadata.ownerReferences.filter((r) => r.uid !== uid) as unknown as Json[] } });
    }
  }
}

/** A watch that syncs the owners of kind `ownerKind` whose selector matches an orphan of `kind` (kube's getPodReplicaSets and the like). */
export function orphanWatch(kind: string, ownerKind: string, member?: (o: StoredObject, owner: StoredObject) => boolean): EnvironmentWatch {
  return {
    kind,
    map(o: StoredObject, read: EnvironmentReader): string[] {
      if (controllerOf(o) !== undefined || o.metadata.deletionTimestamp !== undefined) return [];
      const out: string[] = [];
      for (const owner of read.list(ownerKind, { namespace: o.metadata.namespace })) {
        const reqs = selectorOf(owner);
        if (reqs !== undefined && matchesSelector(reqs, o.metadata.labels) && (member === undefined || member(o, owner))) out.push(keyOf(owner.metadata));
      }
      return out;
    },
  };
}
