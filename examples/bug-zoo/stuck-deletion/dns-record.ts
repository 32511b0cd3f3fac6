import type { ReconcileContext, StoredObject } from '../../../src/index.js';
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
 * only when it changes.
 */
export async function publish(ctx: ReconcileContext, rec: DnsRecord): Promise<{ requeueAfter: number }> {
  const api = dnsApi(ctx);
  const want: ProviderRecord = { owner: rec.metadata.uid, fqdn: rec.spec.fqdn, type: rec.spec.type, value: rec.spec.value, ttl: rec.spec.ttl ?? 300 };
  let remote: Remote<ProviderRecord> | undefined = (await api.list<ProviderRecord>('records', { owner: rec.metadata.uid }))[0];
  // the key names the record this create replaces, so a record deleted out of band can be published again
  if (!remote) remote = await api.create('records', want, { idempotencyKey: `${rec.metadata.uid}/${rec.status.recordId ?? 'first'}` });
  else if (!matches(remote, want)) remote = await api.replace('records', remote.id, want);
  if (rec.status.recordId !== remote.id || rec.status.observedGeneration !== rec.metadata.generation) {
    await ctx.client.updateStatus({ ...rec, status: { recordId: remote.id, observedGeneration: rec.metadata.generation } });
  }
  return { requeueAfter: DNS_RESYNC_MS };
}

/** The id of the provider record to delete: the one status remembers, or the one found by owner. */
export async function recordToDelete(ctx: ReconcileContext, rec: DnsRecord): Promise<string | undefined> {
  if (rec.status.recordId !== undefined) return rec.status.recordId;
  return (await dnsApi(ctx).list<ProviderRecord>('records', { owner: rec.metadata.uid }))[0]?.id;
}
