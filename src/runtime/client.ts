import type { DeleteOptions, ListOptions } from '../store/store.js';
import type { JsonObject, NewObject, StoredObject } from '../store/object.js';
import type { Scale } from '../store/scale.js';

/** A key (`namespace/name`) or an object reference. @public */
export type KeyOrRef = string | { namespace?: string | undefined; name: string };

/** Read options. @public */
export interface ReadOptions {
  /** Read from the API server instead of the informer cache. @defaultValue false */
  live?: boolean;
}

/** Options of a patch. @public */
export interface PatchOptions {
  /** Precondition: 409 unless the object is at this resourceVersion. */
  resourceVersion?: string;
}

/**
 * The controller's client (controller-runtime `client.Client`): cached reads by default, live
 * reads on request, writes to the store. Errors are typed store errors (`ConflictError`, …).
 * Returned objects are copies the caller may mutate and send back.
 * @public
 */
export interface Client {
  /** @throws NotFoundError */
  get<S = JsonObject, T = JsonObject>(kind: string, key: KeyOrRef, options?: ReadOptions): Promise<StoredObject<S, T>>;
  /** Like get, but resolves to undefined when the object does not exist. */
  tryGet<S = JsonObject, T = JsonObject>(kind: string, key: KeyOrRef, options?: ReadOptions): Promise<StoredObject<S, T> | undefined>;
  list<S = JsonObject, T = JsonObject>(kind: string, options?: ListOptions & ReadOptions): Promise<StoredObject<S, T>[]>;
  /**
   * A v1 `Binding` (`{ kind: 'Binding', metadata: { name: pod, namespace }, target: { kind: 'Node', name } }`)
   * is not stored: it binds its Pod, as kube-scheduler's binding does (409 when the Pod is bound
   * already), and resolves to the Binding as sent. A policy/v1 `Eviction`
   * (`{ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: pod, namespace } }`, optional
   * `deleteOptions`) is not stored either: it evicts its Pod as the `pods/eviction` subresource
   * does, and rejects with a 429 `TooManyRequestsError` (retry later, as `kubectl drain` does)
   * while the Pod's PodDisruptionBudget allows no disruption.
   */
  create<S = JsonObject, T = JsonObject>(object: NewObject<S, T>): Promise<StoredObject<S, T>>;
  /** Main resource: spec + metadata; 409 when metadata.resourceVersion is stale. */
  update<S = JsonObject, T = JsonObject>(object: NewObject<S, T> & { metadata: { name: string } }): Promise<StoredObject<S, T>>;
  /** Status subresource. */
  updateStatus<S = JsonObject, T = JsonObject>(object: NewObject<S, T> & { metadata: { name: string } }): Promise<StoredObject<S, T>>;
  /** JSON merge patch of spec/metadata. */
  patch<S = JsonObject, T = JsonObject>(kind: string, key: KeyOrRef, patch: JsonObject, options?: PatchOptions): Promise<StoredObject<S, T>>;
  /** JSON merge patch of status. */
  patchStatus<S = JsonObject, T = JsonObject>(kind: string, key: KeyOrRef, patch: JsonObject, options?: PatchOptions): Promise<StoredObject<S, T>>;
  delete(kind: string, key: KeyOrRef, options?: DeleteOptions): Promise<void>;
  /**
   * The scale subresource (an autoscaling/v1 {@link Scale}) of a Deployment, ReplicaSet,
   * StatefulSet or custom resource whose CRD declares `subresources.scale`: always a live read
   * (client-go's scale client and controller-runtime's `SubResource("scale")` never read a cache).
   * 404 when the object is missing or its kind has no scale subresource.
   */
  getScale(kind: string, key: KeyOrRef): Promise<Scale>;
  /**
   * Writes `scale.spec.replicas` to the object `scale.metadata` names (client-go's
   * `UpdateScale`); only its replicas change, a spec write of the object. With
   * `metadata.resourceVersion` (as read by getScale) the write is conditional: 409 when the
   * object changed since. 422 for negative replicas.
   */
  updateScale(kind: string, scale: Scale): Promise<Scale>;
  /** JSON merge patch of the Scale (`{ spec: { replicas: 3 } }`, what `kubectl scale` sends). */
  patchScale(kind: string, key: KeyOrRef, patch: JsonObject, options?: PatchOptions): Promise<Scale>;
}
