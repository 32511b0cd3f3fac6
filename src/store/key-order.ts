/*
 * The key order objects come back in, as kube-apiserver serves them. A custom resource is stored
 * as unstructured JSON (Go `map[string]interface{}`) and re-encoded by encoding/json, which
 * writes map keys sorted, at every level (metadata included): whatever order a writer used, a
 * reader gets the keys sorted. A built-in kind is a Go struct, served in struct field order; only
 * its map-typed fields come back sorted. A controller comparing `JSON.stringify(obj.status)` with
 * a desired status built in another order sees a difference on every reconcile in a real cluster
 * (a hot loop); the store reproduces that by storing custom resources with their keys sorted.
 *
 * Sorting happens while the store copies what a writer sent (it copies every write anyway), so it
 * costs a comparison per key, and a rebuild only of an object whose keys were out of order.
 *
 * Order: JavaScript's string order (UTF-16 code units), which is Go's byte order of UTF-8 for
 * every key outside the astral planes. Integer-like keys (`"10"`) are the exception JavaScript
 * imposes: a plain object lists them first, in numeric order, as JSON.parse of the apiserver's
 * sorted text also does; a client in JavaScript sees that order from a real cluster too.
 */

/**
 * The built-in kinds (Go structs in kube-apiserver; served in struct field order): every kind of
 * the served built-in resources (src/kube-rest/builtin-resources.ts, a test keeps the two in step),
 * plus the other kinds of Kubernetes' own API groups, so a scenario naming one (a Node, a
 * DaemonSet) is not taken for a custom resource. Every other kind is a custom resource.
 * @internal
 */
export const STRUCT_KINDS: ReadonlySet<string> = new Set([
  // served by src/kube-rest
  'Namespace', 'Pod', 'ConfigMap', 'Secret', 'Service', 'ServiceAccount', 'Event', 'Deployment', 'ReplicaSet', 'StatefulSet',
  'PersistentVolumeClaim', 'ResourceQuota', 'Job', 'NetworkPolicy', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding', 'Lease',
  'CustomResourceDefinition',
  // other built-in kinds of Kubernetes 1.32
  'Binding', 'ComponentStatus', 'Endpoints', 'LimitRange', 'Node', 'PersistentVolume', 'PodTemplate', 'ReplicationController',
  'ControllerRevision', 'DaemonSet', 'CronJob', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'Ingress', 'IngressClass',
  'EndpointSlice', 'StorageClass', 'VolumeAttachment', 'CSIDriver', 'CSINode', 'CSIStorageCapacity', 'PriorityClass', 'RuntimeClass',
  'MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding',
  'APIService', 'CertificateSigningRequest', 'FlowSchema', 'PriorityLevelConfiguration', 'TokenReview', 'SubjectAccessReview',
  'SelfSubjectAccessReview', 'LocalSubjectAccessReview', 'SelfSubjectRulesReview', 'SelfSubjectReview', 'TokenRequest', 'Eviction', 'Scale',
]);

/** Whether objects of `kind` are stored (and served) with their keys sorted: every custom kind. @internal */
export function keysSorted(kind: string): boolean {
  return !STRUCT_KINDS.has(kind);
}

/**
 * Deep copy of plain JSON data with the keys of every object sorted (arrays keep their order),
 * as encoding/json writes a `map[string]interface{}`. Undefined members are dropped and class
 * instances kept as they are, as {@link cloneJson} does (validation names them).
 * @internal
 */
export function cloneSorted<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = cloneSorted(value[i]);
    return out as T;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  const src = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  // copied in the writer's order while checking it; rebuilt only when it was not sorted
  let prev = '';
  let sorted = true;
  for (const k in src) {
    const v = src[k];
    if (v === undefined) continue;
    if (!isIndexKey(k)) {
      if (k < prev) sorted = false;
      prev = k;
    }
    out[k] = cloneSorted(v);
  }
  return (sorted ? out : withSortedKeys(out)) as T;
}

/** `obj` itself when its own keys are in order, else a shallow copy with them sorted (one level). @internal */
export function sortedShallow<T extends object>(obj: T): T {
  let prev = '';
  for (const k in obj) {
    if (isIndexKey(k)) continue;
    if (k < prev) return withSortedKeys(obj as Record<string, unknown>) as T;
    prev = k;
  }
  return obj;
}

/**
 * An integer-like key (`"0"`, `"10"`): a plain object lists these first, in numeric order, whatever
 * the order they were set in, so they are left out of the order check (no rebuild on every write).
 */
function isIndexKey(k: string): boolean {
  const c = k.charCodeAt(0);
  return c >= 48 && c <= 57 && String(Number(k) >>> 0) === k && k !== '4294967295';
}

function withSortedKeys(obj: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(obj);
  if (keys.length > 16) keys.sort();
  else {
    // insertion sort: a status or spec has a handful of keys, and Array.prototype.sort costs ~3× more there
    for (let i = 1; i < keys.length; i++) {
      const k = keys[i]!;
      let j = i - 1;
      for (; j >= 0 && keys[j]! > k; j--) keys[j + 1] = keys[j]!;
      keys[j + 1] = k;
    }
  }
  const out: Record<string, unknown> = {};
  for (let i = 0; i < keys.length; i++) out[keys[i]!] = obj[keys[i]!];
  return out;
}
