import { AlreadyExistsError, defineController, isStoreError, podLifecycle, type JsonObject, type ReconcileContext, type StoredObject, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import { safetyInvariants } from '../../properties/safety-invariants.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { sameEndState, type SameEndStateOptions } from '../../properties/same-end-state.js';
import { controllerRef, controlledBy } from './_shared/owner.js';
import { podReady } from './_shared/pods.js';
import { RESYNC_MS } from './_shared/resync.js';
import { sameJson } from '../bug-zoo/shared/same-json.js';

/**
 * kube-controller-manager's EndpointSlice controller, its reconciler without topology hints: for
 * each Service with a selector, the Ready Pods it matches (Pods it neither owns nor runs: the
 * users' Pods, run by the kubelet, their readiness and IP from their status) are published in
 * `EndpointSlice`s (discovery.k8s.io/v1) of at most MAX_ENDPOINTS endpoints each, owned by the
 * Service (controller ownerReference, garbage-collected with it), labelled
 * `kubernetes.io/service-name` and `endpointslice.kubernetes.io/managed-by`, named by the server
 * from `<service>-` (generateName, as the real controller does). Ports come from the Service's
 * spec (each port's `targetPort`).
 *
 * The reconciler minimizes churn the way the real one does: existing slices keep the endpoints
 * they have that are still wanted (refreshed in place when the Pod's address or uid changed), an
 * endpoint found in two slices stays only in the first by name, the endpoints not yet published
 * fill the gaps of existing slices (those with room, by name), and a new slice is created only
 * when every slice is full; a slice left empty is deleted. So which slice an endpoint lives in
 * depends on the order Pods became Ready, not on the declared state alone (as with the real
 * controller); the set published never does. Within a slice the endpoints are kept sorted by Pod
 * name, so a slice's content is a function of its members.
 *
 * The slices are read LIVE (by label, then filtered to those the Service controls by uid). The
 * real controller reads its informer cache but keeps an EndpointSliceTracker of the generation
 * of every slice it wrote, and a Service whose cached slices are older than what it wrote is
 * requeued instead of reconciled (`StaleInformerCache`): a cache that does not yet show the slice
 * this controller created a moment ago would make it create a second slice for the same
 * endpoints. The live list is the same guarantee with less code. Writes carry the
 * resourceVersion of that list (update), so a slice changed meanwhile is a 409 and a requeue; a
 * create that timed out but was applied is seen by the next reconcile's live list, never created
 * twice. The Service itself is read live too (a cache still showing a deleted Service would make
 * slices the garbage collector removes). Pods come from the cache: a Pod whose Ready event has not
 * arrived yet is published at that event, which is the level-triggered contract of any endpoints
 * controller. Pod events map to the Services whose selector matches (from the cache); slice
 * events to their owning Service.
 *
 * Its buggy twin lists the slices from its informer cache without a tracker: a cache behind its
 * own create shows no slice, and the next reconcile publishes the same Pods in a second slice.
 *
 * Because the layout follows the order the controller learned of Ready Pods, which slice holds
 * which endpoint (and even how many slices there are, once Pods leave) is the path's business, as
 * with the real controller: same-end-state leaves EndpointSlices out, and what is promised (each
 * Ready Pod published once, with its address and uid, in slices of at most MAX_ENDPOINTS carrying
 * the Service's ports, label and address type, none empty) is convergence's `slicesPublished`.
 * (Found by the hunts: stop 37, API errors kept the controller from deciding until all four Pods
 * were Ready; stop 46, swarm seed 480, a lost Pod event hid web-0's readiness when the Service
 * was made, so web-0 went into a second slice the fault-free run gave web-3. Declaring Services
 * timing dependent covered the first only: no benign variation makes a Pod informer lag.)
 */
export const SERVICE = 'Service';
export const ENDPOINT_SLICE = 'EndpointSlice';
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
const MANAGED_BY = 'endpointslice-controller.example.com';
/** Endpoints per slice (the real controller's --max-endpoints-per-slice defaults to 100; small here so slices split). */
export const MAX_ENDPOINTS = 3;

interface ServicePort {
  name?: string;
  port: number;
  targetPort?: number;
  protocol?: string;
}
interface ServiceSpec {
  selector?: Record<string, string>;
  ports?: ServicePort[];
}
interface Endpoint extends JsonObject {
  addresses: string[];
  conditions: { ready: boolean };
  targetRef: { kind: string; namespace: string; name: string; uid: string };
}
type Slice = StoredObject<unknown, unknown> & { endpoints?: Endpoint[]; ports?: JsonObject[]; addressType?: string };

const selectorOf = (sel: Record<string, string>) => Object.entries(sel).map(([k, v]) => `${k}=${v}`).sort().join(',');
const endpointsOf = (s: StoredObject): Endpoint[] => (Array.isArray((s as Slice).endpoints) ? ((s as Slice).endpoints as Endpoint[]) : []);
const byName = (a: { metadata: { name: string } }, b: { metadata: { name: string } }) => a.metadata.name.localeCompare(b.metadata.name);
const sortEndpoints = (e: Endpoint[]) => [...e].sort((a, b) => a.targetRef.name.localeCompare(b.targetRef.name));

/** The slice ports: each Service port's targetPort (its port when none). */
function slicePorts(spec: ServiceSpec): JsonObject[] {
  return (spec.ports ?? []).map((p) => ({ ...(p.name !== undefined ? { name: p.name } : {}), port: p.targetPort ?? p.port, protocol: p.protocol ?? 'TCP' }));
}

function endpointOf(p: StoredObject): Endpoint {
  return { addresses: [p.status['podIP'] as string], conditions: { ready: true }, targetRef: { kind: 'Pod', namespace: p.metadata.namespace ?? '', name: p.metadata.name, uid: p.metadata.uid } };
}

/** What a Service publishes: its matching Ready Pods with an address, by Pod name. */
function wanted(pods: readonly StoredObject[]): Map<string, Endpoint> {
  return new Map(pods.filter((p) => podReady(p) && typeof p.status['podIP'] === 'string').map((p) => [p.metadata.name, endpointOf(p)]));
}

/**
 * The plan for a Service's slices (the real reconciler's order): keep and refresh what each slice
 * still holds (an endpoint twice: only in the first slice by name), fill gaps, then new slices.
 */
export function planSlices(slices: readonly StoredObject[], want: ReadonlyMap<string, Endpoint>): { keep: { slice: StoredObject; endpoints: Endpoint[] }[]; create: Endpoint[][] } {
  const placed = new Set<string>();
  const keep = [...slices].sort(byName).map((slice) => {
    const endpoints: Endpoint[] = [];
    for (const e of endpointsOf(slice)) {
      const w = want.get(e.targetRef.name);
      if (!w || placed.has(e.targetRef.name)) continue;
      placed.add(e.targetRef.name);
      endpoints.push(w);
    }
    return { slice, endpoints };
  });
  const rest = [...want.keys()].filter((n) => !placed.has(n)).sort();
  for (const k of keep) while (k.endpoints.length < MAX_ENDPOINTS && rest.length > 0) k.endpoints.push(want.get(rest.shift()!)!);
  const create: Endpoint[][] = [];
  while (rest.length > 0) create.push(rest.splice(0, MAX_ENDPOINTS).map((n) => want.get(n)!));
  return { keep: keep.map((k) => ({ slice: k.slice, endpoints: sortEndpoints(k.endpoints) })), create: create.map(sortEndpoints) };
}

function define(mistake: 'none' | 'cached-slices') {
  async function reconcile(ctx: ReconcileContext): Promise<void> {
    const svc = await ctx.client.tryGet<ServiceSpec, unknown>(SERVICE, ctx.key, { live: true });
    if (!svc || svc.metadata.deletionTimestamp !== undefined) return;
    const ns = svc.metadata.namespace;
    const selector = svc.spec.selector;
    const labelSelector = `${SERVICE_NAME_LABEL}=${svc.metadata.name}`;
    // BUG (cached-slices): the informer's slices, without a tracker of what this controller just wrote
    const slices = (await ctx.client.list(ENDPOINT_SLICE, { namespace: ns, labelSelector, ...(mistake === 'none' ? { live: true } : {}) })).filter((s) => controlledBy(s, svc));
    // a Service without a selector has its endpoints managed by someone else: publish none
    const selects = selector !== undefined && Object.keys(selector).length > 0;
    let want = wanted(selects ? await ctx.client.list('Pod', { namespace: ns, labelSelector: selectorOf(selector) }) : []);
    // a slice publishing a Pod the cache does not show Ready: the cache may be behind what the slice was
    // made from (a restart whose informer listed from a lagging API server replica showed no Pod at all,
    // and the slice was deleted for 3 s: hunt-systematic-fp, stop 52), so an endpoint is dropped only as a
    // live list of the Pods confirms
    if (selects && slices.some((s) => endpointsOf(s).some((e) => !want.has(e.targetRef.name)))) want = wanted(await ctx.client.list('Pod', { namespace: ns, labelSelector: selectorOf(selector), live: true }));
    const ports = slicePorts(svc.spec);
    const { keep, create } = planSlices(slices, want);
    for (const { slice, endpoints } of keep) {
      if (endpoints.length === 0) {
        try {
          await ctx.client.delete(ENDPOINT_SLICE, { namespace: ns, name: slice.metadata.name }, { preconditions: { uid: slice.metadata.uid, resourceVersion: slice.metadata.resourceVersion } });
        } catch (err) {
          if (!isStoreError(err, 'NotFound')) throw err;
        }
        continue;
      }
      const s = slice as Slice;
      if (sameJson(s.endpoints, endpoints) && sameJson(s.ports, ports) && s.addressType === 'IPv4') continue;
      await ctx.client.update({ ...slice, addressType: 'IPv4', endpoints, ports } as StoredObject);
    }
    for (const endpoints of create) {
      try {
        await ctx.client.create({
          apiVersion: 'discovery.k8s.io/v1',
          kind: ENDPOINT_SLICE,
          metadata: { generateName: `${svc.metadata.name}-`, namespace: ns, labels: { [SERVICE_NAME_LABEL]: svc.metadata.name, [MANAGED_BY_LABEL]: MANAGED_BY }, ownerReferences: [controllerRef(svc)] },
          addressType: 'IPv4',
          endpoints,
          ports,
        } as never);
      } catch (err) {
        if (!(err instanceof AlreadyExistsError)) throw err;
      }
    }
  }
  return defineController({
    name: 'endpoint-slices',
    for: SERVICE,
    owns: [ENDPOINT_SLICE],
    watches: [
      {
        kind: 'Pod',
        map: (pod, view) =>
          view
            .list(SERVICE, { namespace: pod.metadata.namespace ?? '' })
            .filter((s) => {
              const sel = (s.spec['selector'] ?? {}) as Record<string, string>;
              return Object.keys(sel).length > 0 && Object.entries(sel).every(([k, v]) => pod.metadata.labels[k] === v);
            })
            .map((s) => `${s.metadata.namespace}/${s.metadata.name}`),
      },
    ],
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    reconcile,
  });
}

export const endpointSlicesController = define('none');

const servicesAndSlices = (view: WorldView) =>
  view
    .list(SERVICE)
    .filter((s) => s.metadata.deletionTimestamp === undefined)
    .map((svc) => ({ svc, slices: view.list(ENDPOINT_SLICE).filter((x) => x.metadata.namespace === svc.metadata.namespace && controlledBy(x, svc)) }));

/**
 * Converged: for every Service, each Ready matching Pod (with an address) appears exactly once
 * across its slices, with its current address and uid, and nothing else does; no slice holds more
 * than MAX_ENDPOINTS or none; every slice carries the Service's ports, its service-name label and
 * address type IPv4.
 */
export function slicesPublished(view: WorldView): true | string {
  for (const { svc, slices } of servicesAndSlices(view)) {
    const sel = (svc.spec['selector'] ?? {}) as Record<string, string>;
    const pods = Object.keys(sel).length === 0 ? [] : view.list('Pod').filter((p) => p.metadata.namespace === svc.metadata.namespace && Object.entries(sel).every(([k, v]) => p.metadata.labels[k] === v));
    const want = wanted(pods);
    const seen = new Map<string, number>();
    for (const s of slices) {
      const e = endpointsOf(s);
      if (e.length === 0) return `EndpointSlice ${s.metadata.name} of Service ${svc.metadata.name} is empty`;
      if (e.length > MAX_ENDPOINTS) return `EndpointSlice ${s.metadata.name} holds ${e.length} endpoints (at most ${MAX_ENDPOINTS})`;
      if (!sameJson((s as Slice).ports, slicePorts(svc.spec as ServiceSpec))) return `EndpointSlice ${s.metadata.name} does not carry Service ${svc.metadata.name}'s ports`;
      if (s.metadata.labels[SERVICE_NAME_LABEL] !== svc.metadata.name || (s as Slice).addressType !== 'IPv4') return `EndpointSlice ${s.metadata.name} does not carry Service ${svc.metadata.name}'s label and address type IPv4`;
      for (const x of e) {
        seen.set(x.targetRef.name, (seen.get(x.targetRef.name) ?? 0) + 1);
        if (!sameJson(x, want.get(x.targetRef.name))) return `EndpointSlice ${s.metadata.name} publishes Pod ${x.targetRef.name}, ${want.has(x.targetRef.name) ? 'with an old address or uid' : 'which is not a Ready Pod of the Service'}`;
      }
    }
    for (const n of want.keys()) if ((seen.get(n) ?? 0) !== 1) return `Ready Pod ${n} appears ${seen.get(n) ?? 0} times across Service ${svc.metadata.name}'s slices`;
  }
  return true;
}

/** After every write: no Pod is published twice for one Service (a client would weight it double). */
export const noDuplicateEndpoint = safetyInvariants({
  invariants: {
    'no Pod in two slices of a Service': (view) => {
      for (const { svc, slices } of servicesAndSlices(view)) {
        const where = new Map<string, string>();
        for (const s of slices)
          for (const e of endpointsOf(s)) {
            const other = where.get(e.targetRef.name);
            if (other !== undefined && other !== s.metadata.name) return `Pod ${e.targetRef.name} is published by Service ${svc.metadata.name}'s slices ${other} and ${s.metadata.name}`;
            where.set(e.targetRef.name, s.metadata.name);
          }
      }
      return true;
    },
  },
});

const service = (app: string, targetPort: number) => ({ selector: { app }, ports: [{ name: 'http', port: 80, targetPort, protocol: 'TCP' }] });
// Pods change only their image (the one field a Pod lets change)
const pod = (image: string) => ({ containers: [{ name: 'web', image }] });

export const endpointSlices: FalsePositiveCase = {
  name: 'endpoint-slices',
  description: 'an EndpointSlice controller publishes the Ready Pods a Service selects (Pods it neither owns nor runs) in slices of at most 3, keeping slices, filling gaps, creating one only when all are full, deleting empty ones, reading its slices live',
  controllers: [endpointSlicesController],
  options: {
    objects: [
      { kind: SERVICE, name: 'web', spec: [service('web', 8080), service('web', 9090)] },
      { kind: 'Pod', name: 'web', labels: { app: 'web' }, spec: [pod('web:1'), pod('web:2')] },
    ],
    maxObjects: 6,
    environment: [podLifecycle],
  },
  // which slice an endpoint lands in follows the order its controller learned of Ready Pods (path, by
  // design, as in Kubernetes): same-end-state leaves the slices out, convergence says what is promised
  properties: [noDuplicateEndpoint, convergence({ converged: slicesPublished }), ...podEndStateProperties().map((p) => (p.name === 'same-end-state' ? sameEndState({ ...(p.options as Partial<SameEndStateOptions>), ignoreKinds: [...(p.options['ignoreKinds'] as string[]), ENDPOINT_SLICE] }) : p))],
  buggy: {
    controllers: [define('cached-slices')],
    caughtBy: ['no-extra-destructive-actions', 'safety-invariants'],
    world: { maxObjects: 6, maxActions: 2 },
    why: 'it lists its slices from the informer cache with no tracker of what it wrote: a cache behind its own create shows no slice, and the next Pod event publishes the same Pods in a second slice (no-extra-destructive-actions: the copy is deleted once the cache catches up; safety-invariants: a Pod published twice meanwhile)',
  },
};
