import { defineController, fakeRestService, type Client, type ReconcileContext, type ReconcileResult, type StoredObject } from '../../src/index.js';
import { addFinalizer, removeFinalizer } from '../bug-zoo/shared/finalizers.js';
import { jsonApi, type JsonApi, type Remote } from '../bug-zoo/shared/json-api.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';

/**
 * A `HostRecord` publishes one A record at a DNS provider whose API is rate limited, so the
 * controller keeps the whole zone in memory (external-dns style: one list per interval for every
 * record, not one per reconcile). The cache is per process (a restart starts empty), filled by a
 * list of the zone at most every `ZONE_TTL_MS`, updated by the controller's own successful writes,
 * and dropped on any error from the provider (an answer it did not see may have changed the zone):
 * the provider has no idempotency keys, so the cache is what keeps a create from repeating.
 * Each record is re-checked once the cache can have expired (`requeueAfter`), so an edit or a
 * deletion at the provider is repaired within one interval. A finalizer deletes the record.
 */
export const HOST_RECORD = 'HostRecord';
export const DNS_PROVIDER_API = 'https://dns-provider.example/v1';
const FINALIZER = 'dns-provider.example/record';
const ZONE_TTL_MS = 5_000;

interface HostSpec {
  host: string;
  ip: string;
}
interface HostStatus {
  recordId?: string;
  ip?: string;
}
interface ARecord {
  owner: string;
  host: string;
  ip: string;
}

type HostRecord = StoredObject<HostSpec, HostStatus>;

/** The zone as this process last saw it: records by id, and when it was listed. */
interface Zone {
  records: Map<string, Remote<ARecord>>;
  listedAt: number;
}

/**
 * Each cache mistake (a cache kept after a failed call, own creates left out of it, one shared by
 * every process) makes a second record only until the next list of the zone, when the copy is
 * deleted again: the end is clean, so only no-duplicate-side-effects' count of the copies alive
 * at once catches it (no property did before stop 33).
 * @param mistake - 'keeps-cache-on-error': a failed call leaves the cache as it was, though the provider may have applied it
 */
function define(mistake: 'none' | 'keeps-cache-on-error') {
  const zones = new WeakMap<Client, Zone>();
  async function zoneOf(ctx: ReconcileContext, api: JsonApi): Promise<Zone> {
    const cached = zones.get(ctx.client);
    if (cached && ctx.clock.now() - cached.listedAt < ZONE_TTL_MS) return cached;
    const listed: Zone = { records: new Map((await api.list<ARecord>('records')).map((r) => [r.id, r])), listedAt: ctx.clock.now() };
    zones.set(ctx.client, listed);
    return listed;
  }
  async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
    const h: HostRecord | undefined = await ctx.client.tryGet<HostSpec, HostStatus>(HOST_RECORD, ctx.key, { live: true });
    if (!h) return;
    const api = jsonApi(ctx.fetch, DNS_PROVIDER_API);
    const uid = h.metadata.uid;
    let keep: Remote<ARecord> | undefined;
    try {
      if (h.metadata.deletionTimestamp !== undefined) {
        // the provider, not the cache, says what is left to delete: a deletion must not miss a record
        await api.removeOwned('records', uid);
        zones.delete(ctx.client);
        await removeFinalizer(ctx, h, FINALIZER);
        return;
      }
      if (await addFinalizer(ctx, h, FINALIZER)) return;
      const zone = await zoneOf(ctx, api);
      const mine = [...zone.records.values()].filter((r) => r.owner === uid);
      const want: ARecord = { owner: uid, host: h.spec.host, ip: h.spec.ip };
      keep = mine.find((r) => r.host === want.host && r.ip === want.ip) ?? mine.find((r) => r.host === want.host);
      if (keep === undefined) {
        // no idempotency key (the provider has none): the cache is what keeps a create from repeating, so it must hold every record this process made and be dropped when an answer went missing
        keep = await api.create<ARecord>('records', want);
        zone.records.set(keep.id, keep);
      } else if (keep.ip !== want.ip) {
        keep = await api.patch<ARecord>('records', keep.id, { ip: want.ip });
        zone.records.set(keep.id, keep);
      }
      for (const other of mine) {
        if (other.id === keep.id) continue;
        await api.removeIfPresent('records', other.id);
        zone.records.delete(other.id);
      }
    } catch (err) {
      // an answer not seen may have changed the zone (a create applied whose response was lost)
      // BUG (keeps-cache-on-error): the cache still says the record is missing, and the retry creates it again
      if (mistake === 'none') zones.delete(ctx.client);
      throw err;
    }
    if (keep === undefined) return;
    if (h.status.recordId !== keep.id || h.status.ip !== h.spec.ip) await ctx.client.updateStatus({ ...h, status: { recordId: keep.id, ip: h.spec.ip } });
    // re-checked against the provider once the cache can have expired: drift is repaired within an interval
    return { requeueAfter: ZONE_TTL_MS };
  }
  return defineController({ name: 'zone-cache', for: HOST_RECORD, leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile });
}

export const zoneCacheController = define('none');
/** The cache kept after a failed call: a create applied but unanswered is made again, then cleaned up at the next list (two records served meanwhile). */
export const zoneCacheKeptOnError = define('keeps-cache-on-error');

export const zoneCache: FalsePositiveCase = {
  name: 'zone-cache',
  description: 'external-dns style: HostRecords published as A records at a rate-limited DNS provider through a per-process zone cache (listed at most every 5 s, updated by its own writes, dropped on errors), re-checked every interval; a finalizer deletes the record',
  controllers: [zoneCacheController],
  options: {
    objects: { kind: HOST_RECORD, name: 'host', spec: [{ host: 'api', ip: '10.0.0.1' }, { host: 'api', ip: '10.0.0.2' }, { host: 'www', ip: '10.0.0.1' }] },
    downstream: () => ({ services: [fakeRestService({ baseUrl: DNS_PROVIDER_API, latencyMs: 20 })], timeoutMs: 5_000 }),
  },
  // the record's id is the provider's
  properties: endStateProperties('status.recordId'),
  buggy: { controllers: [zoneCacheKeptOnError], caughtBy: ['no-duplicate-side-effects'], seed: 1, why: 'a failed call leaves the zone cache as it was, so a create the provider applied but whose answer was lost is made again: two records are served until the next list deletes the copy' },
};
