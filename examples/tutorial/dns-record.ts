import { isDeepStrictEqual } from 'node:util';
import { defineController, fakeRestService, type CheckOptions, type ReconcileContext, type StoredObject } from 'steadystate';

// A DnsRecord publishes one record at an external DNS provider (a REST API).
interface DnsRecordSpec {
  fqdn: string;
  value: string;
}
interface Condition {
  type: 'Ready';
  status: 'True' | 'False';
  reason: string;
  observedGeneration: number;
}
interface DnsRecordStatus {
  recordId?: string;
  observedGeneration?: number;
  conditions?: Condition[];
}
type DnsRecord = StoredObject<DnsRecordSpec, DnsRecordStatus>;
interface ProviderRecord {
  id: string;
  owner: string;
  fqdn: string;
  value: string;
}

export const DNS_API = 'https://dns.example/v1';
const FINALIZER = 'dns.example/cleanup';

/** One call to the provider; 404 is "not there" (undefined), anything else not 2xx throws (and is retried with backoff). */
async function provider<T>(ctx: ReconcileContext, method: string, path: string, body?: object, idempotencyKey?: string): Promise<T | undefined> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
  const res = await ctx.fetch(`${DNS_API}${path}`, { method, headers, ...(body ? { body: JSON.stringify(body) } : {}) });
  if (res.status === 404) return undefined;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status}`);
  return res.status === 204 ? undefined : ((await res.json()) as T);
}

export const dnsRecords = defineController({
  name: 'dns-records',
  for: 'DnsRecord',
  // two replicas may run: only the leader reconciles
  leaderElection: true,
  // a lost event is repaired by the next resync; it must come around within the settle phase
  resyncPeriodMs: 10_000,
  async reconcile(ctx) {
    // live read: the cache may still show an object we just updated, or one being deleted
    const rec: DnsRecord | undefined = await ctx.client.tryGet<DnsRecordSpec, DnsRecordStatus>('DnsRecord', ctx.key, { live: true });
    if (!rec) return;
    const mine = (await provider<ProviderRecord[]>(ctx, 'GET', `/records?owner=${rec.metadata.uid}`)) ?? [];

    if (rec.metadata.deletionTimestamp !== undefined) {
      if (!rec.metadata.finalizers.includes(FINALIZER)) return;
      // idempotent cleanup: a record that is already gone (404) is fine
      for (const r of mine) await provider(ctx, 'DELETE', `/records/${r.id}`);
      await ctx.client.update({ ...rec, metadata: { ...rec.metadata, finalizers: rec.metadata.finalizers.filter((f) => f !== FINALIZER) } });
      return;
    }
    if (!rec.metadata.finalizers.includes(FINALIZER)) {
      // the finalizer first, before anything external exists; the update's event brings us back
      await ctx.client.update({ ...rec, metadata: { ...rec.metadata, finalizers: [...rec.metadata.finalizers, FINALIZER] } });
      return;
    }

    const want = { owner: rec.metadata.uid, fqdn: rec.spec.fqdn, value: rec.spec.value };
    let record = mine[0];
    // the idempotency key makes a retried create (lost response, crash, second replica) publish once
    if (!record) record = await provider<ProviderRecord>(ctx, 'POST', '/records', want, `${rec.metadata.uid}/${rec.status.recordId ?? 'first'}`);
    else if (record.fqdn !== want.fqdn || record.value !== want.value) record = await provider<ProviderRecord>(ctx, 'PUT', `/records/${record.id}`, want);
    if (!record) throw new Error('the provider lost the record we just wrote');

    const generation = rec.metadata.generation;
    const status: DnsRecordStatus = { recordId: record.id, observedGeneration: generation, conditions: [{ type: 'Ready', status: 'True', reason: 'Published', observedGeneration: generation }] };
    // compare before writing (an unconditional status write is a hot loop), by value: the API server
    // serves a custom resource with its keys sorted, so JSON.stringify of what we built would differ
    if (!isDeepStrictEqual(rec.status, status)) await ctx.client.updateStatus({ ...rec, status });
    return undefined;
  },
});

export const checkOptions: CheckOptions = {
  objects: { kind: 'DnsRecord', name: 'www', spec: [{ fqdn: 'www.example.com', value: '203.0.113.10' }, { fqdn: 'www.example.com', value: '203.0.113.20' }] },
  // a fresh provider per run, so runs never share state
  downstream: () => ({ services: [fakeRestService({ baseUrl: DNS_API, name: 'dns-provider', idempotencyKeyHeader: 'idempotency-key' })] }),
  replicas: 2,
};
