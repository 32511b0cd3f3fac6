import { NotFoundError, type ReconcileContext, type ReconcileResult, type StoredObject } from '../../../src/index.js';
import { jsonApi, matches, type JsonApi, type Remote } from '../shared/json-api.js';

/**
 * A `DNSRecord` publishes one record at an external DNS provider (a REST API). A finalizer makes
 * sure the provider's record is deleted before the object goes away. Shared by the buggy and the
 * correct controller; they differ only in how cleanup treats a record that is already gone.
 */
export const DNS_KIND = 'DNSRecord';
export const DNS_API = 'https://dns.example/v1';
export const DNS_FINALIZER = 'dns.example/cleanup';
/** How often a published record is re-checked against the provider (drift repair). */
export const DNS_RESYNC_MS = 10_000;

export interface DnsRecordSpec {
  /** Fully qualified name, e.g. `www.example.com`. */
  fqdn: string;
  type: 'A' | 'CNAME' | 'TXT';
  value: string;
  /** @defaultValue 300 */
  ttl?: number;
}

export interface DnsRecordStatus {
  /** The provider's id of the published record. */
  recordId?: string;
  observedGeneration?: number;
}

export type DnsRecord = StoredObject<DnsRecordSpec, DnsRecordStatus>;

/** The record as the provider stores it; `owner` is the uid of the DNSRecord object. */
export interface ProviderRecord {
  owner: string;
  fqdn: string;
  type: string;
  value: string;
  ttl: number;
}

export function dnsApi(ctx: ReconcileContext): JsonApi {
  return jsonApi(ctx.fetch, DNS_API);
}

/**
 * Publishes the record: looks it up by owner before creating it and creates it with an
 * idempotency key (so a lost response, a crash before the status write or a second replica never
 * publishes it twice), replaces it when it drifted, and records its id in status. Writes status
 * only when it changes. A record created for an object that is gone by the time its id would be
 * recorded is deleted again: another process (a second replica) may have cleaned up and removed
 * the finalizer while this create was in flight, and nothing else would ever find it.
 */
export async function publish(ctx: ReconcileContext, rec: DnsRecord): Promise<ReconcileResult> {
  const api = dnsApi(ctx);
  const want: ProviderRecord = { owner: rec.metadata.uid, fqdn: rec.spec.fqdn, type: rec.spec.type, value: rec.spec.value, ttl: rec.spec.ttl ?? 300 };
  let remote: Remote<ProviderRecord> | undefined = (await api.list<ProviderRecord>('records', { owner: rec.metadata.uid }))[0];
  const created = !remote;
  // the key names the record this create replaces, so a record deleted out of band can be published again
  if (!remote) remote = await api.create('records', want, { idempotencyKey: `${rec.metadata.uid}/${rec.status.recordId ?? 'first'}` });
  else if (!matches(remote, want)) remote = await api.replace('records', remote.id, want);
  if (rec.status.recordId !== remote.id || rec.status.observedGeneration !== rec.metadata.generation) {
    try {
      await ctx.client.updateStatus({ ...rec, status: { recordId: remote.id, observedGeneration: rec.metadata.generation } });
    } catch (err) {
      if (!(created && err instanceof NotFoundError)) throw err;
      await api.removeIfPresent('records', remote.id);
      return undefined;
    }
  }
  return { requeueAfter: DNS_RESYNC_MS };
}

/**
 * The ids of the provider records to delete: the one status remembers, and every one the
 * provider lists for this object. A record published by a second replica, or before a crash
 * kept its id out of status (and the remembered one was then deleted out of band), is this
 * object's too, and deleting only the remembered one would leak it. The remembered id counts
 * even when the list does not show it: a provider's list may lag behind its writes.
 */
export async function recordsToDelete(ctx: ReconcileContext, rec: DnsRecord): Promise<string[]> {
  const listed = (await dnsApi(ctx).list<ProviderRecord>('records', { owner: rec.metadata.uid })).map((r) => r.id);
  return [...new Set([...(rec.status.recordId !== undefined ? [rec.status.recordId] : []), ...listed])];
}
