import { isBuiltin } from '../store/key-order.js';
import type { StoredObject } from '../store/object.js';
import type { ResolvedResource } from './resource-definition.js';

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/**
 * Whether a stored object is one of `resource`'s. The store keys objects by kind, so two groups
 * that define one kind (a Knative `Service` beside the core Service, Cluster API's and
 * CloudNativePG's `Cluster`) keep their objects in one place there; the API serves each group
 * only its own, as kube-apiserver keeps them apart (before, a list of one group's kind showed the
 * other's objects under its own apiVersion). Two built-in spellings of one kind (core/v1 and
 * events.k8s.io/v1 Events) are one set of objects, as in kube-apiserver; an object stored without
 * an apiVersion (in-process) is every group's.
 * @internal
 */
export function servedBy(obj: StoredObject, resource: ResolvedResource): boolean {
  const apiVersion = obj.apiVersion;
  if (apiVersion === undefined || apiVersion === '') return true;
  if (groupOf(apiVersion) === resource.group) return true;
  return isBuiltin(obj.kind, apiVersion) && isBuiltin(resource.kind, resource.apiVersion);
}

/** How a request names an object another group's kind holds (the store cannot keep both). @internal */
export function heldByOtherGroup(obj: StoredObject, resource: ResolvedResource): string {
  const plural = `${resource.plural}${resource.group !== '' ? `.${resource.group}` : ''}`;
  return `${plural} "${obj.metadata.name}" cannot be stored: steadystate's API server keeps objects by kind and name, and the ${obj.kind} "${obj.metadata.namespace !== undefined ? `${obj.metadata.namespace}/` : ''}${obj.metadata.name}" of ${obj.apiVersion} holds that name (a cluster keeps the two groups apart). Give one of them another name.`;
}
