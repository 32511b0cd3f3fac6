import { isBuiltin } from './key-order.js';
import { jsonEqual, type StoredObject } from './object.js';
import { parseQuantity } from './quantity.js';

/**
 * kube-apiserver's update validation of the built-in kinds' immutable fields (the registry
 * strategies' ValidateUpdate), for the kinds environment actors and controllers use, and the
 * immutable paths a user declares for a custom kind (what CRD validation `self == oldSelf`
 * expresses). Each error is a field error as kube-apiserver reports it: the field path, the error
 * type and its body, worded as the apiserver words it, so the 422 `Status` carries the same
 * `causes`.
 */

/** One field error (k8s.io/apimachinery `field.Error`). @public */
export interface FieldError {
  /** The field path, e.g. `spec.selector`. */
  field: string;
  /** The cause reason in the `Status` body. */
  type: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueNotSupported' | 'FieldValueDuplicate';
  /** The error without the field: `Invalid value: …: field is immutable`, `Forbidden: …`. */
  body: string;
}

/** What the store enforces beyond the built-in kinds. @public */
export interface ValidationOptions {
  /**
   * Paths (dotted, e.g. `spec.storageClass`) that may not change once an object of the kind was
   * created, per kind: adding, changing or removing them is refused with 422, as a CRD rule
   * `self == oldSelf` does.
   * @defaultValue {}
   */
  immutable?: Readonly<Record<string, readonly string[]>>;
}

const POD_MUTABLE =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';
const STS_MUTABLE = "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";

/** The immutable-field errors of replacing `cur` by `next` (none: an empty list). @internal */
export function immutabilityErrors(cur: StoredObject, next: StoredObject, options: ValidationOptions | undefined): FieldError[] {
  const out: FieldError[] = [];
  // the built-in kinds below but ConfigMap, Secret and the bindings check spec only: a write that kept
  // the stored spec (a status write) changes none of it
  const specKept = cur.spec === next.spec;
  // a custom resource named like a built-in (another apiVersion) has none of the built-in's rules
  const builtin = isBuiltin(cur.kind, cur.apiVersion);
  switch (!builtin || (specKept && cur.kind !== 'ConfigMap' && cur.kind !== 'Secret' && cur.kind !== 'RoleBinding' && cur.kind !== 'ClusterRoleBinding') ? '' : cur.kind) {
    case 'Pod':
      pod(cur, next, out);
      break;
    case 'PersistentVolumeClaim':
      claim(cur, next, out);
      break;
    case 'Job':
      for (const f of ['selector', 'template', 'completionMode']) unchanged(cur.spec[f], next.spec[f], `spec.${f}`, out);
      break;
    case 'StatefulSet': {
      const strip = (s: Record<string, unknown>) => {
        const { replicas: _r, ordinals: _o, template: _t, updateStrategy: _u, persistentVolumeClaimRetentionPolicy: _p, minReadySeconds: _m, ...rest } = s;
        return rest;
      };
      if (!jsonEqual(strip(cur.spec), strip(next.spec))) out.push({ field: 'spec', type: 'FieldValueForbidden', body: `Forbidden: ${STS_MUTABLE}` });
      break;
    }
    case 'Deployment':
    case 'ReplicaSet':
    case 'DaemonSet':
      unchanged(cur.spec['selector'], next.spec['selector'], 'spec.selector', out);
      break;
    case 'Service':
      // a ClusterIP once set (or None, headless) stays, unless the type changes from or to ExternalName (validateUpgradeDowngradeClusterIPs)
      if (isSet(cur.spec['clusterIP']) && cur.spec['type'] !== 'ExternalName' && next.spec['type'] !== 'ExternalName') unchanged(cur.spec['clusterIP'], next.spec['clusterIP'], 'spec.clusterIP', out);
      break;
    case 'ConfigMap':
    case 'Secret':
      if (cur['immutable'] === true) {
        for (const f of cur.kind === 'Secret' ? ['data'] : ['data', 'binaryData']) {
          if (!jsonEqual(cur[f], next[f])) out.push({ field: f, type: 'FieldValueForbidden', body: 'Forbidden: field is immutable when `immutable` is set' });
        }
        if (next['immutable'] !== true) out.push({ field: 'immutable', type: 'FieldValueForbidden', body: 'Forbidden: field is immutable when `immutable` is set' });
      }
      if (cur.kind === 'Secret') unchanged(cur['type'] ?? 'Opaque', next['type'] ?? 'Opaque', 'type', out);
      break;
    case 'RoleBinding':
    case 'ClusterRoleBinding':
      if (!jsonEqual(cur['roleRef'], next['roleRef'])) out.push({ field: 'roleRef', type: 'FieldValueInvalid', body: `Invalid value: ${shown(next['roleRef'])}: cannot change roleRef` });
      break;
  }
  const paths = options?.immutable?.[cur.kind];
  if (paths !== undefined && paths !== null) for (const path of paths) {
    if (!jsonEqual(at(cur, path), at(next, path))) out.push({ field: path, type: 'FieldValueInvalid', body: `Invalid value: ${shown(at(next, path))}: field is immutable` });
  }
  return out;
}

/**
 * Pod updates change only container images, activeDeadlineSeconds, tolerations (additions),
 * terminationGracePeriodSeconds and schedulingGates (removals), as ValidatePodUpdate allows.
 * `spec.nodeName` is not among them: it is set at creation or by a binding (the `pods/binding`
 * subresource, `ObjectStore.bind`), never by an update or patch.
 */
function pod(cur: StoredObject, next: StoredObject, out: FieldError[]): void {
  const a = { ...cur.spec } as Record<string, unknown>;
  const b = { ...next.spec } as Record<string, unknown>;
  for (const list of ['containers', 'initContainers']) {
    const ca = a[list];
    const cb = b[list];
    if (Array.isArray(ca) && Array.isArray(cb) && ca.length === cb.length) b[list] = cb.map((c, i) => (isRecord(c) && isRecord(ca[i]) ? { ...c, image: ca[i]['image'] } : c));
  }
  const ta = Array.isArray(a['tolerations']) ? a['tolerations'] : [];
  const tb = Array.isArray(b['tolerations']) ? b['tolerations'] : [];
  if (ta.every((t) => tb.some((u) => jsonEqual(t, u)))) b['tolerations'] = a['tolerations'];
  b['activeDeadlineSeconds'] = a['activeDeadlineSeconds'];
  b['terminationGracePeriodSeconds'] = a['terminationGracePeriodSeconds'];
  // gates may go, never come (validateOnlyDeletedSchedulingGates); the spec check leaves them out
  const ga = gateNames(a['schedulingGates']);
  const gb = Array.isArray(b['schedulingGates']) ? b['schedulingGates'] : [];
  gb.forEach((g, i) => {
    const name = isRecord(g) ? g['name'] : undefined;
    if (!ga.has(name)) out.push({ field: `spec.schedulingGates[${i}].name`, type: 'FieldValueForbidden', body: `Forbidden: only deletion is allowed, but found new scheduling gate '${String(name ?? '')}'` });
  });
  b['schedulingGates'] = a['schedulingGates'];
  if (!jsonEqual(a, b)) out.push({ field: 'spec', type: 'FieldValueForbidden', body: `Forbidden: ${POD_MUTABLE}` });
}

function gateNames(gates: unknown): Set<unknown> {
  return new Set(Array.isArray(gates) ? gates.map((g) => (isRecord(g) ? g['name'] : undefined)) : []);
}

/**
 * A claim's spec is fixed after creation, except its storage request on a Bound claim, which may
 * only grow, and the volume the binder sets once.
 */
function claim(cur: StoredObject, next: StoredObject, out: FieldError[]): void {
  const a = { ...cur.spec } as Record<string, unknown>;
  const b = { ...next.spec } as Record<string, unknown>;
  if (!isSet(a['volumeName'])) b['volumeName'] = a['volumeName'];
  b['volumeAttributesClassName'] = a['volumeAttributesClassName'];
  const bound = cur.status['phase'] === 'Bound';
  const before = storageOf(a);
  const after = storageOf(b);
  if (bound) b['resources'] = withStorage(b['resources'], before);
  if (!jsonEqual(a, b)) {
    out.push({ field: 'spec', type: 'FieldValueForbidden', body: 'Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims' });
    return;
  }
  const x = parseQuantity(before);
  const y = parseQuantity(after);
  if (bound && x !== undefined && y !== undefined && y < x) out.push({ field: 'spec.resources.requests.storage', type: 'FieldValueForbidden', body: 'Forbidden: field can not be less than previous value' });
}

function storageOf(spec: Record<string, unknown>): unknown {
  const r = spec['resources'];
  return isRecord(r) && isRecord(r['requests']) ? r['requests']['storage'] : undefined;
}

function withStorage(resources: unknown, storage: unknown): unknown {
  if (!isRecord(resources) || !isRecord(resources['requests'])) return resources;
  const requests: Record<string, unknown> = { ...resources['requests'] };
  if (storage === undefined) delete requests['storage'];
  else requests['storage'] = storage;
  return { ...resources, requests };
}

function unchanged(a: unknown, b: unknown, field: string, out: FieldError[]): void {
  if (!jsonEqual(a, b)) out.push({ field, type: 'FieldValueInvalid', body: `Invalid value: ${shown(b)}: field is immutable` });
}

/** The value at a dotted path of an object, or undefined. */
function at(obj: unknown, path: string): unknown {
  let v: unknown = obj;
  for (const seg of path.split('.')) {
    if (!isRecord(v)) return undefined;
    v = v[seg];
  }
  return v;
}

function isSet(v: unknown): boolean {
  return typeof v === 'string' ? v !== '' : v !== undefined && v !== null;
}

function shown(v: unknown): string {
  return v === undefined ? 'null' : JSON.stringify(v);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
