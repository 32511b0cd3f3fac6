import { defineController, NotFoundError, type OwnerReference, type ReconcileContext, type ReconcileResult, type StoredObject } from '../../src/index.js';
import { addFinalizer, removeFinalizer } from '../bug-zoo/shared/finalizers.js';
import { apply } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { controllerRef, controllerUid } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A `DnsZone` serves the `DnsRecord`s its selector matches (the zone's name and its
 * `visibility`), records people create on their own, and claims them the way kube-controller-
 * manager's ReplicaSet controller claims Pods (ControllerRefManager.ClaimObject): an orphan that
 * matches is adopted with an ownerReference patch (controller: true, so the records go with the
 * zone), a record it controls that stops matching (the zone switched visibility) is released by
 * removing that reference, and a record controlled by anyone else is never touched. Reads come
 * from the informer cache; each adoption or release is a merge patch with the cached
 * resourceVersion (the list of references is replaced whole, so a stale view gets a 409 instead of
 * dropping someone else's reference), and before the first adoption the zone is read live
 * (RecheckDeletionTimestamp: a cache still showing a zone that was deleted, or recreated with
 * another uid, would hand its orphans to an owner the garbage collector then deletes them for).
 * Records are people's data: a zone being deleted releases every record it controls (read live:
 * a cache behind an adoption would leave one to the garbage collector) behind a finalizer, and
 * adopts only once that finalizer is on, so deleting a zone never deletes a record. (The first
 * version let the garbage collector take them, as a ReplicaSet's Pods go: then whether a record
 * created just before its zone was deleted survives depends on whether the zone got to adopt it
 * in time, so the end state depended on timing: found by the hunt, see the notes.)
 * The zone reports the records it serves. A second controller, `WebEndpoint`, makes a record of
 * its own that matches the public zone's selector: it controls it, so the zone leaves it alone.
 */
export const DNS_ZONE = 'DnsZone';
export const DNS_RECORD = 'DnsRecord';
export const WEB_ENDPOINT = 'WebEndpoint';
const ZONE_LABEL = 'dns.example.com/zone';
const VISIBILITY_LABEL = 'dns.example.com/visibility';
const FINALIZER = 'dns.example.com/release-records';

interface ZoneSpec {
  visibility: 'public' | 'internal';
  ttl: number;
}
interface ZoneStatus {
  records?: string[];
  ttl?: number;
  observedGeneration?: number;
}
interface RecordSpec {
  type: string;
  value: string;
}
type Zone = StoredObject<ZoneSpec, ZoneStatus>;
type DnsRecord = StoredObject<RecordSpec, unknown>;

const matches = (r: DnsRecord, z: Zone) => r.metadata.labels[ZONE_LABEL] === z.metadata.name && r.metadata.labels[VISIBILITY_LABEL] === z.spec.visibility;

/** Replaces a record's ownerReferences (optimistic: the list is replaced whole). A record gone meanwhile needs nothing. */
async function setOwners(ctx: ReconcileContext, r: DnsRecord, ownerReferences: OwnerReference[]): Promise<DnsRecord | undefined> {
  try {
    return await ctx.client.patch<RecordSpec, unknown>(DNS_RECORD, { namespace: r.metadata.namespace, name: r.metadata.name }, { metadata: { ownerReferences: ownerReferences as unknown as null } }, { resourceVersion: r.metadata.resourceVersion });
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}

/** `stealControlled` is the buggy twin: it adopts every matching record it does not control, controlled by someone else or not. */
const makeReconcile = (stealControlled: boolean) => async (ctx: ReconcileContext): Promise<ReconcileResult> => {
  const zone = await ctx.client.tryGet<ZoneSpec, ZoneStatus>(DNS_ZONE, ctx.key);
  if (!zone) return;
  const ns = zone.metadata.namespace;
  if (zone.metadata.deletionTimestamp !== undefined) {
    if (!zone.metadata.finalizers.includes(FINALIZER)) return;
    for (const r of await ctx.client.list<RecordSpec, unknown>(DNS_RECORD, { ...(ns !== undefined ? { namespace: ns } : {}), live: true })) {
      if (controllerUid(r) === zone.metadata.uid) await setOwners(ctx, r, r.metadata.ownerReferences.filter((x) => x.uid !== zone.metadata.uid));
    }
    await removeFinalizer(ctx, zone, FINALIZER);
    return;
  }
  if (await addFinalizer(ctx, zone, FINALIZER)) return; // its update brings the zone back
  const records = (await ctx.client.list<RecordSpec, unknown>(DNS_RECORD, { ...(ns !== undefined ? { namespace: ns } : {}) })).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  let adoptable: boolean | undefined;
  const canAdopt = async () => {
    if (adoptable === undefined) {
      const fresh = await ctx.client.tryGet(DNS_ZONE, ctx.key, { live: true });
      adoptable = fresh !== undefined && fresh.metadata.uid === zone.metadata.uid && fresh.metadata.deletionTimestamp === undefined;
    }
    return adoptable;
  };
  const served: DnsRecord[] = [];
  for (const r of records) {
    const owner = controllerUid(r);
    if (owner === zone.metadata.uid) {
      if (matches(r, zone)) served.push(r);
      // ours, but no longer selected: release it (only our reference goes)
      else await setOwners(ctx, r, r.metadata.ownerReferences.filter((x) => x.uid !== zone.metadata.uid));
      continue;
    }
    if (owner !== undefined && !stealControlled) continue; // someone else's
    if (!matches(r, zone) || r.metadata.deletionTimestamp !== undefined) continue;
    // the original zone is gone or going: adopting for it would hand the record to the garbage collector
    if (!(await canAdopt())) return { requeueAfter: 1_000 };
    const adopted = await setOwners(ctx, r, [...r.metadata.ownerReferences.filter((x) => x.controller !== true), controllerRef(zone)]);
    if (adopted) served.push(adopted);
  }
  await writeStatus(ctx, zone, { records: served.map((r) => `${r.metadata.name} ${r.spec.type} ${r.spec.value}`), ttl: zone.spec.ttl, observedGeneration: zone.metadata.generation });
  return undefined;
};

/** A record event: the zone that controls it, and the zone its labels name (an orphan it may adopt). */
function zonesFor(r: StoredObject): string[] {
  const ns = r.metadata.namespace ?? '';
  const keys = new Set<string>();
  const named = r.metadata.labels[ZONE_LABEL];
  if (named !== undefined) keys.add(`${ns}/${named}`);
  const ctrl = r.metadata.ownerReferences.find((x) => x.controller === true && x.kind === DNS_ZONE);
  if (ctrl) keys.add(`${ns}/${ctrl.name}`);
  return [...keys];
}

const defineZone = (stealControlled: boolean) =>
  defineController({
    name: 'dns-zone',
    for: DNS_ZONE,
    watches: [{ kind: DNS_RECORD, map: zonesFor }],
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    reconcile: makeReconcile(stealControlled),
  });

/** A WebEndpoint publishes its address as a public record of zone corp-0, which it controls. */
async function reconcileEndpoint(ctx: ReconcileContext): Promise<void> {
  const ep = await ctx.client.tryGet<{ ip: string }, { observedGeneration?: number }>(WEB_ENDPOINT, ctx.key, { live: true });
  if (!ep || ep.metadata.deletionTimestamp !== undefined) return;
  await apply(ctx, {
    apiVersion: 'dns.example.com/v1',
    kind: DNS_RECORD,
    metadata: { name: `${ep.metadata.name}-endpoint`, namespace: ep.metadata.namespace, labels: { [ZONE_LABEL]: 'corp-0', [VISIBILITY_LABEL]: 'public' }, ownerReferences: [controllerRef(ep)] },
    spec: { type: 'A', value: ep.spec.ip },
  });
  await writeStatus(ctx, ep, { observedGeneration: ep.metadata.generation });
}

export const webEndpointController = defineController({
  name: 'web-endpoint',
  for: WEB_ENDPOINT,
  owns: [DNS_RECORD],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile: reconcileEndpoint,
});

export const dnsZoneController = defineZone(false);

const record = (value: string) => ({ type: 'A', value });

export const zoneRecords: FalsePositiveCase = {
  name: 'zone-records',
  description: "a DnsZone adopts the orphan DnsRecords its selector matches and releases those that stop matching, like kube's ControllerRefManager (cached reads, ownerReference patches with the cached resourceVersion, a live owner recheck before adopting), never touching records another controller controls",
  controllers: [dnsZoneController, webEndpointController],
  options: {
    objects: [
      { kind: DNS_ZONE, name: 'corp', spec: [{ visibility: 'public', ttl: 300 }, { visibility: 'internal', ttl: 300 }, { visibility: 'public', ttl: 60 }] },
      { kind: DNS_RECORD, name: 'www', labels: { [ZONE_LABEL]: 'corp-0', [VISIBILITY_LABEL]: 'public' }, spec: [record('10.0.0.1'), record('10.0.0.2')] },
      { kind: DNS_RECORD, name: 'db', labels: { [ZONE_LABEL]: 'corp-0', [VISIBILITY_LABEL]: 'internal' }, spec: [record('10.1.0.1'), record('10.1.0.2')] },
      { kind: WEB_ENDPOINT, name: 'shop', spec: [{ ip: '10.0.0.7' }, { ip: '10.0.0.8' }] },
    ],
    maxObjects: 4,
  },
  properties: endStateProperties(),
  buggy: {
    controllers: [defineZone(true), webEndpointController],
    caughtBy: ['convergence'],
    why: "it adopts every matching record it does not control, also one another controller controls: it takes the WebEndpoint's record, whose controller then finds it held by another owner on every reconcile",
    // a zone and an endpoint
    world: { maxObjects: 4 },
  },
};
