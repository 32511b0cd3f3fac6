import { isBuiltin } from './key-order.js';
import type { StoredObject } from './object.js';
import { canonicalQuantity } from './quantity.js';

/**
 * The `resource.Quantity` fields of the built-in kinds (Kubernetes 1.32's Go types). kube-apiserver
 * decodes a built-in object into its Go struct, so every quantity it stores is parsed and served in
 * canonical form (`2000m` as `2`, `2048Mi` as `2Gi`: the classic apply diff), and one that does
 * not parse fails decoding. A custom resource is stored as sent.
 */
type Obj = Record<string, unknown>;
/** Visits each quantity slot under a value: its holder object and key. */
type Walk = (v: unknown, slot: (holder: Obj, key: string) => void) => void;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const at = (v: unknown, ...path: string[]): unknown => {
  for (const f of path) v = isObj(v) ? v[f] : undefined;
  return v;
};
const items = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** A ResourceList (map of resource name → quantity). */
const resourceList: Walk = (v, slot) => {
  if (isObj(v)) for (const k of Object.keys(v)) slot(v, k);
};
/** One quantity field of an object. */
const field = (key: string): Walk => (v, slot) => {
  if (isObj(v) && Object.hasOwn(v, key)) slot(v, key);
};
/** A walk of the value at `path`. */
const under = (path: string[], walk: Walk): Walk => (v, slot) => walk(at(v, ...path), slot);
const each = (walk: Walk): Walk => (v, slot) => {
  for (const item of items(v)) walk(item, slot);
};
const all = (...walks: Walk[]): Walk => (v, slot) => {
  for (const w of walks) w(v, slot);
};

const requirements: Walk = all(under(['limits'], resourceList), under(['requests'], resourceList));
const pvcSpec: Walk = under(['resources'], requirements);
const pvcStatus: Walk = all(under(['capacity'], resourceList), under(['allocatedResources'], resourceList));
const container: Walk = under(['resources'], requirements);
const podSpec: Walk = all(
  ...['containers', 'initContainers', 'ephemeralContainers'].map((f) => under([f], each(container))),
  under(['overhead'], resourceList),
  under(['resources'], requirements),
  under(['volumes'], each(all(under(['emptyDir'], field('sizeLimit')), under(['ephemeral', 'volumeClaimTemplate', 'spec'], pvcSpec)))),
);
const containerStatus: Walk = all(under(['allocatedResources'], resourceList), under(['resources'], requirements));
const podStatus: Walk = all(...['containerStatuses', 'initContainerStatuses', 'ephemeralContainerStatuses'].map((f) => under([f], each(containerStatus))));
const templateSpec: Walk = under(['template', 'spec'], podSpec);
const metricTarget = (side: 'target' | 'current'): Walk =>
  all(...['object', 'pods', 'resource', 'containerResource', 'external'].map((src) => under([src, side], all(field('value'), field('averageValue')))));

/** Per kind: top-level field → its quantity slots. */
const FIELDS: ReadonlyMap<string, Readonly<Record<string, Walk>>> = new Map<string, Record<string, Walk>>([
  ['Pod', { spec: podSpec, status: podStatus }],
  ['PodTemplate', { template: under(['spec'], podSpec) }],
  ['Deployment', { spec: templateSpec }],
  ['ReplicaSet', { spec: templateSpec }],
  ['DaemonSet', { spec: templateSpec }],
  ['ReplicationController', { spec: templateSpec }],
  ['Job', { spec: templateSpec }],
  ['CronJob', { spec: under(['jobTemplate', 'spec'], templateSpec) }],
  ['StatefulSet', { spec: all(templateSpec, under(['volumeClaimTemplates'], each(all(under(['spec'], pvcSpec), under(['status'], pvcStatus))))) }],
  ['PersistentVolumeClaim', { spec: pvcSpec, status: pvcStatus }],
  ['PersistentVolume', { spec: under(['capacity'], resourceList) }],
  ['Node', { status: all(under(['capacity'], resourceList), under(['allocatable'], resourceList)) }],
  ['ResourceQuota', { spec: under(['hard'], resourceList), status: all(under(['hard'], resourceList), under(['used'], resourceList)) }],
  [
    'LimitRange',
    { spec: under(['limits'], each(all(...['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'].map((f) => under([f], resourceList))))) },
  ],
  // top-level quantities: '' walks the object itself
  ['CSIStorageCapacity', { '': all(field('capacity'), field('maximumVolumeSize')) }],
  ['RuntimeClass', { overhead: under(['podFixed'], resourceList) }],
  ['HorizontalPodAutoscaler', { spec: under(['metrics'], each(metricTarget('target'))), status: under(['currentMetrics'], each(metricTarget('current'))) }],
]);

/** {@link FIELDS} as lists, made once (not an `Object.entries` per write). */
const FIELD_LISTS: ReadonlyMap<string, readonly (readonly [string, Walk])[]> = new Map([...FIELDS].map(([kind, f]) => [kind, Object.entries(f)]));

/**
 * The canonical forms of the quantity strings seen (a workload's few: `100m`, `128Mi`), so each is
 * parsed once, not on every write of every Pod that carries it (a parse makes BigInts). Pure, so
 * what it holds changes nothing but the time; short strings only, emptied when full: bounded memory.
 */
const canonical = new Map<string, ReturnType<typeof canonicalQuantity>>();
const CANONICAL_MAX = 4096;

function canonicalOf(raw: unknown): ReturnType<typeof canonicalQuantity> {
  if (typeof raw !== 'string' || raw.length > 64) return canonicalQuantity(raw);
  let r = canonical.get(raw);
  if (r === undefined) {
    if (canonical.size >= CANONICAL_MAX) canonical.clear();
    r = canonicalQuantity(raw);
    canonical.set(raw, r);
  }
  return r;
}

/**
 * Puts every quantity of a built-in object in the form kube-apiserver serves it (in place; the
 * fields `o` shares with `stored`, the object it replaces, are as stored already and skipped).
 * Returns the decoding error of a quantity that does not parse (a 400 over HTTP), worded as
 * kube-apiserver words it: `ResourceQuota in version "v1" cannot be handled as a ResourceQuota:
 * quantities must match the regular expression …`.
 * @internal
 */
export function canonicalizeQuantities(o: StoredObject, stored?: StoredObject): string | undefined {
  const fields = FIELD_LISTS.get(o.kind);
  if (fields === undefined || !isBuiltin(o.kind, o.apiVersion ?? stored?.apiVersion)) return undefined;
  // autoscaling/v1's HorizontalPodAutoscaler has no quantity field
  if (o.kind === 'HorizontalPodAutoscaler' && (o.apiVersion ?? stored?.apiVersion) === 'autoscaling/v1') return undefined;
  const top = o as unknown as Obj;
  const old = stored as unknown as Obj | undefined;
  let error: string | undefined;
  for (const [name, walk] of fields) {
    const v = name === '' ? top : top[name];
    if (v === undefined || v === null || (old !== undefined && v === old[name])) continue;
    walk(v, (h, key) => {
      if (error !== undefined || h[key] === undefined) return;
      const r = canonicalOf(h[key]);
      if ('error' in r) error = r.error;
      else if (h[key] !== r.value) h[key] = r.value;
    });
  }
  if (error === undefined) return undefined;
  const version = (o.apiVersion ?? stored?.apiVersion ?? '').split('/').pop() ?? 'v1';
  return `${o.kind} in version "${version}" cannot be handled as a ${o.kind}: ${error}`;
}
