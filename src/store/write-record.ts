import type { StoreErrorReason } from './errors.js';

/** The write verbs the store records (`bind`: a Pod bound through the `pods/binding` subresource). @public */
export type WriteVerb = 'create' | 'update' | 'updateStatus' | 'patch' | 'patchStatus' | 'delete' | 'bind';

/**
 * One write request, recorded whether or not it changed anything: a no-op costs API QPS too,
 * and the hot-loop and idempotence properties count it.
 * @public
 */
export interface WriteRecord {
  /** Virtual time (ms). */
  t: number;
  /** Who wrote: `user`, `controller:<name>/<replica>`, `environment:<name>`, `fault:<kind>`. */
  actor: string;
  verb: WriteVerb;
  kind: string;
  key: string;
  /** uid of the object written (absent when the write failed before finding one). */
  uid?: string;
  /** resourceVersion after the write (absent for no-ops and errors). */
  rv?: number;
  /** Field paths the write changed (`spec.replicas`, `metadata.finalizers`). */
  changed: string[];
  /** The write was accepted but changed nothing (no resourceVersion bump, no watch event). */
  noop: boolean;
  /** The object was removed from the store by this write. */
  removed?: boolean;
  /** The write marked the object for deletion (finalizers present). */
  markedForDeletion?: boolean;
  /**
   * A delete that named no propagation policy, of a kind whose default orphans (a batch/v1 Job):
   * the dependents it orphaned, as `Kind namespace/name` (kube-apiserver answers it with a warning).
   */
  orphaned?: string[];
  /** Set when the write failed. */
  error?: StoreErrorReason;
}
