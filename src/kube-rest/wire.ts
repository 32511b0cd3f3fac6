import { cloneSorted, keysSorted, sortedShallow } from '../store/key-order.js';
import { cloneJson, type Json, type JsonObject, type NewObject, type StoredObject } from '../store/object.js';
import { keepsGeneration } from '../store/strategy.js';
import type { FieldManagers } from './managed-fields.js';
import type { ResolvedResource } from './resource-definition.js';
import { KubeStatusError } from './status.js';

const TOP_LEVEL = new Set(['apiVersion', 'kind', 'metadata', 'status']);
/** Fields of the stored object already written by {@link toWire} before the content. */
const SERVED_FIRST = new Set(['apiVersion', 'kind', 'metadata', 'spec', 'status']);

function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The `metav1.MicroTime` fields of the built-in kinds, by `group/kind`. kube-apiserver decodes
 * them with the layout `2006-01-02T15:04:05.000000Z07:00`, exactly six fractional digits, and
 * refuses the body otherwise (400): a Lease stamped with a plain `Date` (`toISOString()`, three
 * digits) never leads on a real cluster, which is why client-node ships `V1MicroTime`.
 */
const MICRO_TIME_FIELDS: Readonly<Record<string, readonly (readonly string[])[]>> = {
  'coordination.k8s.io/Lease': [
    ['spec', 'acquireTime'],
    ['spec', 'renewTime'],
  ],
  '/Event': [['eventTime'], ['series', 'lastObservedTime']],
  'events.k8s.io/Event': [['eventTime'], ['series', 'lastObservedTime']],
};
const RFC3339_MICRO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(?:Z|[+-]\d{2}:\d{2})$/;
const GO_MICRO_LAYOUT = '2006-01-02T15:04:05.000000Z07:00';

/** @throws KubeStatusError (400) naming the first MicroTime field that is neither null nor RFC 3339 with microseconds */
function checkMicroTimes(body: JsonObject, resource: ResolvedResource): void {
  const fields = MICRO_TIME_FIELDS[`${resource.group}/${resource.kind}`];
  if (!fields) return;
  for (const path of fields) {
    let v: unknown = body;
    for (const k of path) v = isObject(v) ? v[k] : undefined;
    if (v === undefined || v === null) continue;
    if (typeof v === 'string' && RFC3339_MICRO.test(v)) continue;
    const shown = typeof v === 'string' ? v : JSON.stringify(v);
    // kube-apiserver's decoder message, with the part of the value after the seconds it could not read
    const rest = typeof v === 'string' ? v.slice(19) : shown;
    const why = typeof v === 'string' ? `parsing time ${JSON.stringify(v)} as ${JSON.stringify(GO_MICRO_LAYOUT)}: cannot parse ${JSON.stringify(rest)} as ".000000"` : `${path.join('.')}: expected a string in RFC 3339 format with microseconds, got ${shown}`;
    throw new KubeStatusError('BadRequest', `${resource.kind} in version "${resource.version}" cannot be handled as a ${resource.kind}: ${why} (${path.join('.')} is a MicroTime: write it with six fractional digits, e.g. client-node's new V1MicroTime())`);
  }
}

/**
 * A stored object as kube-apiserver serves it: `apiVersion`/`kind` of the resource, metadata
 * with empty collections left out, and every top-level field (ConfigMap `data`, RBAC `rules`).
 * Kinds without a spec (`shape: 'flat'`) are served without an empty one. Returns a fresh object
 * the caller may mutate. With `fields`, an object a manager has applied carries its
 * `metadata.managedFields` (server-side apply).
 * @internal
 */
export function toWire(obj: StoredObject, resource: ResolvedResource, fields?: FieldManagers): JsonObject {
  const m = obj.metadata;
  const meta: JsonObject = { name: m.name };
  if (m.generateName !== undefined) meta['generateName'] = m.generateName;
  if (m.namespace !== undefined) meta['namespace'] = m.namespace;
  meta['uid'] = m.uid;
  meta['resourceVersion'] = m.resourceVersion;
  // a ConfigMap, Secret, Service or Pod has no generation on a real 1.32 server (Go leaves the 0 out)
  if (keepsGeneration(obj.kind, obj.apiVersion)) meta['generation'] = m.generation;
  meta['creationTimestamp'] = m.creationTimestamp;
  if (m.deletionTimestamp !== undefined) {
    meta['deletionTimestamp'] = m.deletionTimestamp;
    meta['deletionGracePeriodSeconds'] = 0;
  }
  if (Object.keys(m.labels).length > 0) meta['labels'] = cloneJson(m.labels);
  if (Object.keys(m.annotations).length > 0) meta['annotations'] = cloneJson(m.annotations);
  if (m.ownerReferences.length > 0) meta['ownerReferences'] = cloneJson(m.ownerReferences) as unknown as Json;
  if (m.finalizers.length > 0) meta['finalizers'] = [...m.finalizers];
  const managed = fields?.wire(obj);
  if (managed !== undefined) meta['managedFields'] = managed;
  const out: JsonObject = { apiVersion: resource.apiVersion, kind: resource.kind, metadata: meta };
  if (resource.shape !== 'flat' || Object.keys(obj.spec).length > 0) out['spec'] = cloneJson(obj.spec);
  const custom = keysSorted(resource.kind, resource.apiVersion);
  const maps = custom ? undefined : OMITTED_WHEN_EMPTY[resource.kind];
  for (const k in obj) {
    const v = obj[k];
    if (SERVED_FIRST.has(k) || v === undefined) continue;
    // Go's omitempty leaves an empty map out (a ConfigMap's data): `add /data/k` on it is a 422 on a cluster
    if (maps?.includes(k) && isObject(v) && Object.keys(v).length === 0) continue;
    out[k] = cloneJson(v) as Json;
  }
  // a built-in kind's status is a struct, served even when empty; a custom resource's is whatever was
  // written: a create drops it (status subresource), so a new one has none until /status is written
  if (custom ? Object.keys(obj.status).length > 0 : resource.statusSubresource || Object.keys(obj.status).length > 0) out['status'] = cloneJson(obj.status);
  // a custom resource is unstructured JSON to kube-apiserver: served with every key sorted (metadata too), see store/key-order.ts
  const served = resource.wireNames !== undefined ? renamed(out, resource.wireNames, false) : out;
  if (!custom) return served;
  served['metadata'] = cloneSorted(meta);
  return sortedShallow(served);
}

/** Top-level map fields of built-in kinds (`map[string]…` with `omitempty`) that are not served when empty. */
const OMITTED_WHEN_EMPTY: Readonly<Record<string, readonly string[]>> = {
  ConfigMap: ['data', 'binaryData'],
  Secret: ['data', 'stringData'],
};

/** Top-level fields renamed stored → served (or back, `inbound`), in their order. */
function renamed(obj: JsonObject, names: Readonly<Record<string, string>>, inbound: boolean): JsonObject {
  const map = inbound ? Object.fromEntries(Object.entries(names).map(([k, v]) => [v, k])) : names;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(obj)) out[map[k] ?? k] = v;
  return out;
}

/**
 * A request body (create, update) as the object store's input, checked against the URL the
 * way kube-apiserver checks it. `route` gives the namespace and name from the path.
 * @throws KubeStatusError (400) on a body that names another kind, namespace or name
 * @internal
 */
export function fromWire(sent: unknown, resource: ResolvedResource, route: { namespace: string | undefined; name: string | undefined }): NewObject & { metadata: { name?: string | undefined } } {
  if (!isObject(sent)) throw new KubeStatusError('BadRequest', `the body of the request was in an unknown format: expected a JSON object for ${resource.kind}`);
  // a kind served with another spelling in this group is stored with the stored one
  const body = resource.wireNames !== undefined ? renamed(sent, resource.wireNames, true) : sent;
  checkMicroTimes(body, resource);
  if (body['kind'] !== undefined && body['kind'] !== resource.kind) {
    throw new KubeStatusError('BadRequest', `the kind of the object (${String(body['kind'])}) does not match the kind of the resource on the URL (${resource.kind}, ${resource.plural})`);
  }
  if (body['apiVersion'] !== undefined && body['apiVersion'] !== resource.apiVersion) {
    throw new KubeStatusError('BadRequest', `the API version in the data (${String(body['apiVersion'])}) does not match the expected API version (${resource.apiVersion})`);
  }
  const meta = body['metadata'] === undefined ? {} : body['metadata'];
  if (!isObject(meta)) throw new KubeStatusError('BadRequest', `metadata of the ${resource.kind} must be an object`);
  const str = (k: string): string | undefined => (typeof meta[k] === 'string' && meta[k] !== '' ? (meta[k] as string) : undefined);
  let namespace = str('namespace');
  if (resource.namespaced) {
    if (route.namespace !== undefined && namespace !== undefined && namespace !== route.namespace) {
      throw new KubeStatusError('BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
    }
    namespace = route.namespace ?? namespace;
    if (namespace === undefined) throw new KubeStatusError('BadRequest', `a ${resource.kind} must be created in a namespace: POST it to /namespaces/<namespace>/${resource.plural}`);
  } else {
    namespace = undefined;
  }
  const name = str('name');
  if (route.name !== undefined && name !== undefined && name !== route.name) {
    throw new KubeStatusError('BadRequest', `the name of the object (${name}) does not match the name on the URL (${route.name})`);
  }
  const s = body['spec'] ?? {};
  if (!isObject(s)) throw new KubeStatusError('BadRequest', `spec of the ${resource.kind} must be an object`);
  const content: JsonObject = {};
  for (const [k, v] of Object.entries(body)) if (!TOP_LEVEL.has(k) && k !== 'spec' && v !== undefined) content[k] = cloneJson(v);
  const status = body['status'] ?? {};
  const out: NewObject & { metadata: { name?: string | undefined } } = {
    apiVersion: resource.apiVersion,
    kind: resource.kind,
    metadata: {
      ...(name ?? route.name ? { name: name ?? route.name } : {}),
      ...(str('generateName') !== undefined ? { generateName: str('generateName') } : {}),
      ...(namespace !== undefined ? { namespace } : {}),
      ...(meta['labels'] !== undefined && meta['labels'] !== null ? { labels: cloneJson(meta['labels']) as Record<string, string> } : {}),
      ...(meta['annotations'] !== undefined && meta['annotations'] !== null ? { annotations: cloneJson(meta['annotations']) as Record<string, string> } : {}),
      ...(meta['finalizers'] !== undefined && meta['finalizers'] !== null ? { finalizers: cloneJson(meta['finalizers']) as string[] } : {}),
      ...(meta['ownerReferences'] !== undefined && meta['ownerReferences'] !== null ? { ownerReferences: cloneJson(meta['ownerReferences']) as unknown as NonNullable<NewObject['metadata']['ownerReferences']> } : {}),
      ...(typeof meta['resourceVersion'] === 'string' ? { resourceVersion: meta['resourceVersion'] } : {}),
      ...(typeof meta['uid'] === 'string' && meta['uid'] !== '' ? { uid: meta['uid'] } : {}),
    },
    ...content,
    spec: cloneJson(s),
    status: isObject(status) ? cloneJson(status) : {},
  };
  return out;
}
