import type { OwnerReference, StoredObject } from '../../../src/index.js';

/** The controller ownerReference of a child of `owner` (garbage-collected with it). */
export function controllerRef(owner: StoredObject<unknown, unknown>): OwnerReference {
  return { ...(owner.apiVersion !== undefined ? { apiVersion: owner.apiVersion } : {}), kind: owner.kind, name: owner.metadata.name, uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true };
}

/** True when `child` is controlled by `owner` (same uid: a recreated owner is another owner). */
export function controlledBy(child: StoredObject<unknown, unknown>, owner: StoredObject<unknown, unknown>): boolean {
  return child.metadata.ownerReferences.some((r) => r.controller === true && r.uid === owner.metadata.uid);
}

/** The uid of the child's controller, if any. */
export function controllerUid(child: StoredObject<unknown, unknown>): string | undefined {
  return child.metadata.ownerReferences.find((r) => r.controller === true)?.uid;
}
