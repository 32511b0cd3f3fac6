import { ConflictError } from './errors.js';
import { keyOf, type StoredObject } from './object.js';

/*
 * The store's 409 checks: optimistic concurrency on resourceVersion and uid, worded as
 * kube-apiserver words them, so a client's conflict handling sees what it would in a cluster.
 */

/**
 * 409 when the request names a resourceVersion other than the object's; an absent or empty one
 * is an unconditional write. Undefined when the precondition holds.
 * @internal
 */
export function resourceVersionConflict(kind: string, key: string, cur: StoredObject, expected: string | undefined): ConflictError | undefined {
  if (expected === undefined || expected === '' || expected === cur.metadata.resourceVersion) return undefined;
  return new ConflictError(`Operation cannot be fulfilled on ${kind} "${key}": the object has been modified; please apply your changes to the latest version and try again`);
}

/**
 * Returns `cur` unless the request names another uid (the object was deleted and recreated
 * under the name): then throws 409, as kube-apiserver does.
 * @throws ConflictError
 * @internal
 */
export function checkUid(cur: StoredObject, uid: unknown): StoredObject {
  if (typeof uid === 'string' && uid !== '' && uid !== cur.metadata.uid) {
    throw new ConflictError(`Operation cannot be fulfilled on ${cur.kind} "${keyOf(cur.metadata)}": Precondition failed: UID in precondition: ${uid}, UID in object meta: ${cur.metadata.uid}`);
  }
  return cur;
}

/** 409 when a delete's preconditions do not hold, or undefined. @internal */
export function deletePreconditionConflict(kind: string, key: string, cur: StoredObject, pre: { uid?: string; resourceVersion?: string } | undefined): ConflictError | undefined {
  if (pre?.uid !== undefined && pre.uid !== cur.metadata.uid) {
    return new ConflictError(`${kind} "${key}": precondition failed: uid ${pre.uid} is not ${cur.metadata.uid}`);
  }
  if (pre?.resourceVersion !== undefined && pre.resourceVersion !== cur.metadata.resourceVersion) {
    return new ConflictError(`${kind} "${key}": precondition failed: resourceVersion ${pre.resourceVersion} is not ${cur.metadata.resourceVersion}`);
  }
  return undefined;
}
