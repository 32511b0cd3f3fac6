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
 * The built-in kinds (Go structs in kube-apiserver; served in struct field order) and the
 * apiVersions Kubernetes 1.32 serves each in (the first: the one a create without apiVersion
 * stores): every kind of the served built-in resources (src/kube-rest/builtin-resources.ts, a test
 * keeps the two in step), plus the other kinds of Kubernetes' own API groups, so a scenario naming
 * one (a Node, a DaemonSet) is not taken for a custom resource. A kind of another apiVersion is a
 * custom resource of that name (Knative's `serving.knative.dev/v1` Service, Volcano's
 * `batch.volcano.sh/v1alpha1` Job): kube-apiserver stores it unstructured, with none of the
 * built-in's defaulting and validation.
 * @internal
 */
export const BUILTIN_API_VERSIONS: ReadonlyMap<string, readonly string[]> = new Map<string, readonly string[]>([
  // served by src/kube-rest
  ['Namespace', ['v1']], ['Pod', ['v1']], ['ConfigMap', ['v1']], ['Secret', ['v1']], ['Service', ['v1']], ['ServiceAccount', ['v1']],
  ['Event', ['v1', 'events.k8s.io/v1']], ['Deployment', ['apps/v1']], ['ReplicaSet', ['apps/v1']], ['StatefulSet', ['apps/v1']],
  ['PersistentVolumeClaim', ['v1']], ['ResourceQuota', ['v1']], ['Job', ['batch/v1']], ['NetworkPolicy', ['networking.k8s.io/v1']],
  ['Role', ['rbac.authorization.k8s.io/v1']], ['RoleBinding', ['rbac.authorization.k8s.io/v1']], ['ClusterRole', ['rbac.authorization.k8s.io/v1']],
  ['ClusterRoleBinding', ['rbac.authorization.k8s.io/v1']], ['Lease', ['coordination.k8s.io/v1']], ['CustomResourceDefinition', ['apiextensions.k8s.io/v1']],
  ['PodDisruptionBudget', ['policy/v1']],
  // other built-in kinds of Kubernetes 1.32
  ['Binding', ['v1']], ['ComponentStatus', ['v1']], ['Endpoints', ['v1']], ['LimitRange', ['v1']], ['Node', ['v1']], ['PersistentVolume', ['v1']],
  ['PodTemplate', ['v1']], ['ReplicationController', ['v1']], ['ControllerRevision', ['apps/v1']], ['DaemonSet', ['apps/v1']], ['CronJob', ['batch/v1']],
  ['HorizontalPodAutoscaler', ['autoscaling/v2', 'autoscaling/v1']], ['Ingress', ['networking.k8s.io/v1']],
  ['IngressClass', ['networking.k8s.io/v1']], ['EndpointSlice', ['discovery.k8s.io/v1']], ['StorageClass', ['storage.k8s.io/v1']],
  ['VolumeAttachment', ['storage.k8s.io/v1']], ['CSIDriver', ['storage.k8s.io/v1']], ['CSINode', ['storage.k8s.io/v1']], ['CSIStorageCapacity', ['storage.k8s.io/v1']],
  ['PriorityClass', ['scheduling.k8s.io/v1']], ['RuntimeClass', ['node.k8s.io/v1']],
  ['MutatingWebhookConfiguration', ['admissionregistration.k8s.io/v1']], ['ValidatingWebhookConfiguration', ['admissionregistration.k8s.io/v1']],
  ['ValidatingAdmissionPolicy', ['admissionregistration.k8s.io/v1']], ['ValidatingAdmissionPolicyBinding', ['admissionregistration.k8s.io/v1']],
  ['APIService', ['apiregistration.k8s.io/v1']], ['CertificateSigningRequest', ['certificates.k8s.io/v1']],
  ['FlowSchema', ['flowcontrol.apiserver.k8s.io/v1', 'flowcontrol.apiserver.k8s.io/v1beta3']],
  ['PriorityLevelConfiguration', ['flowcontrol.apiserver.k8s.io/v1', 'flowcontrol.apiserver.k8s.io/v1beta3']],
  ['TokenReview', ['authentication.k8s.io/v1']], ['SubjectAccessReview', ['authorization.k8s.io/v1']], ['SelfSubjectAccessReview', ['authorization.k8s.io/v1']],
  ['LocalSubjectAccessReview', ['authorization.k8s.io/v1']], ['SelfSubjectRulesReview', ['authorization.k8s.io/v1']], ['SelfSubjectReview', ['authentication.k8s.io/v1']],
  ['TokenRequest', ['authentication.k8s.io/v1']], ['Eviction', ['policy/v1']], ['Scale', ['autoscaling/v1']],
]);

/** The kinds of {@link BUILTIN_API_VERSIONS}. @internal */
export const STRUCT_KINDS: ReadonlySet<string> = new Set(BUILTIN_API_VERSIONS.keys());

/**
 * Whether an object of `kind` and `apiVersion` is the built-in kind: its kind is one, and its
 * apiVersion is the built-in's or absent (an in-process `{ kind: 'ConfigMap' }` means the core
 * ConfigMap; the store gives it its apiVersion on create).
 * @internal
 */
export function isBuiltin(kind: string, apiVersion?: string): boolean {
  const versions = BUILTIN_API_VERSIONS.get(kind);
  if (versions === undefined) return false;
  return apiVersion === undefined || apiVersion === '' || versions.includes(apiVersion);
}

/** The apiVersion a built-in `kind` is stored with when created without one; undefined for a custom kind. @internal */
export function builtinApiVersion(kind: string): string | undefined {
  return BUILTIN_API_VERSIONS.get(kind)?.[0];
}

/** Whether objects of `kind` (and `apiVersion`, when known) are stored (and served) with their keys sorted: every custom resource. @internal */
export function keysSorted(kind: string, apiVersion?: string): boolean {
  return !isBuiltin(kind, apiVersion);
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

/**
 * {@link cloneSorted} of JSON data no one else holds (the client's wire copy of what a controller
 * sent: no undefined members, no class instances): the same keys in the same order, but only an
 * object whose keys were out of order is rebuilt, and nothing else is copied (the store copied
 * every status a controller wrote a second time, after the client's copy).
 * @internal
 */
export function sortedInPlace<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      const s = sortedInPlace(v);
      if (s !== v) value[i] = s;
    }
    return value;
  }
  const obj = value as Record<string, unknown>;
  let prev = '';
  let sorted = true;
  for (const k in obj) {
    // an own `__proto__` (JSON can carry one) is copied as cloneSorted copies it
    if (k === '__proto__') return cloneSorted(value);
    const v = obj[k];
    if (v !== null && typeof v === 'object') {
      const s = sortedInPlace(v);
      if (s !== v) obj[k] = s;
    }
    if (isIndexKey(k)) continue;
    if (k < prev) sorted = false;
    prev = k;
  }
  return (sorted ? obj : withSortedKeys(obj)) as T;
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
