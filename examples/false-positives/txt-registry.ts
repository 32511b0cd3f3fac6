import { defineController, fakeRestService, type ReconcileContext, type ReconcileResult, type StoredObject, type WorldView } from '../../src/index.js';
import { safetyInvariants } from '../../properties/safety-invariants.js';
import { addFinalizer, removeFinalizer } from '../bug-zoo/shared/finalizers.js';
import { jsonApi, type Remote } from '../bug-zoo/shared/json-api.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { RESYNC_MS } from './_shared/resync.js';
import { setCondition, writeStatus, type Condition } from './_shared/status.js';

/**
 * ExternalDNS with its TXT registry, for the DNSEndpoint CRD source: a `DNSEndpoint` asks for an
 * A record (`spec.dnsName` → `spec.target`) at a DNS provider's API shared with other clusters and
 * with people. Ownership lives at the provider: next to each A record it publishes, the controller
 * keeps a TXT record of the same name saying `heritage=external-dns,external-dns/owner=<its owner
 * id>,external-dns/resource=dnsendpoint/<ns>/<name>`. It creates the TXT before the A record and
 * deletes the A record before the TXT, so an A record it made is never left without its claim;
 * it never touches a name whose TXT names another owner or resource, nor an A record without a TXT
 * (made by hand): those are reported as a `Conflict` condition, never taken over. A name changed
 * or an endpoint deleted (finalizer) removes the records its TXT claims. Every step looks at the
 * provider first, so a lost answer or a crash between the two records resumes where the provider is.
 *
 * Its buggy twin takes an A record no TXT claims for free (as a registry migration that adopts
 * unclaimed records does): it claims the name, overwrites the record a person made by hand, and
 * deletes it when its endpoint goes.
 */
export const DNS_ENDPOINT = 'DNSEndpoint';
export const DNS_API = 'https://dns.example/v1';
const FINALIZER = 'externaldns.example.com/records';
const OWNER_ID = 'cluster-east';
const ZONE = 'example.com';

interface EndpointSpec {
  dnsName: string;
  target: string;
}
interface EndpointStatus {
  observedGeneration?: number;
  conditions?: Condition[];
}
type Endpoint = StoredObject<EndpointSpec, EndpointStatus>;
interface DnsRecord {
  zone: string;
  name: string;
  type: 'A' | 'TXT';
  value: string;
}

const resourceOf = (e: Endpoint) => `dnsendpoint/${e.metadata.namespace ?? ''}/${e.metadata.name}`;
const claimOf = (e: Endpoint) => `heritage=external-dns,external-dns/owner=${OWNER_ID},external-dns/resource=${resourceOf(e)}`;
const mine = (e: Endpoint, r: DnsRecord) => r.type === 'TXT' && r.value === claimOf(e);

function define(mistake: 'none' | 'adopt-unclaimed') {
  return async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
    const e = (await ctx.client.tryGet<EndpointSpec, EndpointStatus>(DNS_ENDPOINT, ctx.key, { live: true })) as Endpoint | undefined;
    if (!e) return;
    const dns = jsonApi(ctx.fetch, DNS_API);
    const inZone = async () => dns.list<DnsRecord>('records', { zone: ZONE });
    /** Removes the records of `name`: the A record first, then its claim. */
    const release = async (records: readonly Remote<DnsRecord>[], name: string) => {
      const owned = records.some((r) => r.name === name && mine(e, r));
      if (!owned) return;
      for (const r of records.filter((x) => x.name === name && x.type === 'A')) await dns.removeIfPresent('records', r.id);
      for (const r of records.filter((x) => x.name === name && x.type === 'TXT' && mine(e, x))) await dns.removeIfPresent('records', r.id);
    };
    if (e.metadata.deletionTimestamp !== undefined) {
      const records = await inZone();
      const names = [...new Set(records.filter((r) => mine(e, r)).map((r) => r.name))];
      for (const n of names) await release(records, n);
      await removeFinalizer(ctx, e, FINALIZER);
      return;
    }
    if (await addFinalizer(ctx, e, FINALIZER)) return;
    let records = await inZone();
    // names this endpoint claimed before (its dnsName changed): released
    for (const n of new Set(records.filter((r) => mine(e, r) && r.name !== e.spec.dnsName).map((r) => r.name))) await release(records, n);
    records = await inZone();
    const name = e.spec.dnsName;
    const txt = records.filter((r) => r.name === name && r.type === 'TXT');
    const a = records.filter((r) => r.name === name && r.type === 'A');
    let conflict: string | undefined;
    if (txt.length > 0 && !txt.some((r) => mine(e, r))) conflict = `${name} is claimed by another owner (${txt[0]!.value})`;
    // BUG (adopt-unclaimed): an A record no registry claims is taken for free and claimed
    else if (mistake === 'none' && txt.length === 0 && a.length > 0) conflict = `${name} has an A record no registry claims (made by hand): not taken over`;
    else {
      // the claim first: an A record is never published without it
      if (txt.length === 0) await dns.create<DnsRecord>('records', { zone: ZONE, name, type: 'TXT', value: claimOf(e) });
      const want: DnsRecord = { zone: ZONE, name, type: 'A', value: e.spec.target };
      if (a.length === 0) await dns.create<DnsRecord>('records', want);
      else {
        if (a[0]!.value !== want.value) await dns.replace<DnsRecord>('records', a[0]!.id, want);
        for (const extra of a.slice(1)) await dns.removeIfPresent('records', extra.id);
      }
    }
    const conditions = setCondition(
      e.status.conditions,
      conflict === undefined
        ? { type: 'Published', status: 'True', reason: 'Published', message: `${name} A ${e.spec.target}`, observedGeneration: e.metadata.generation }
        : { type: 'Published', status: 'False', reason: 'Conflict', message: conflict, observedGeneration: e.metadata.generation },
      ctx.clock.now(),
    );
    await writeStatus(ctx, e, { observedGeneration: e.metadata.generation, conditions });
    // a conflict may clear when the other owner lets the name go: looked at again at the resync
    return undefined;
  };
}

const defineTxtRegistry = (mistake: 'none' | 'adopt-unclaimed') =>
  defineController({ name: 'external-dns', for: DNS_ENDPOINT, leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile: define(mistake) });

export const txtRegistryController = defineTxtRegistry('none');

/** The ids of the records the provider starts with (a fake service numbers its resources from 1, those first). */
const FOREIGN_IDS = new Set(['1', '2', '3']);

/**
 * Records others made are never taken: none of the records the provider started with (made by
 * hand, or claimed by another cluster's registry) is claimed by a TXT of this owner while it
 * exists, or holds the target of a DNSEndpoint. (Drift may edit or delete them, never into
 * either; a name freed by deleting its record by hand may be published, with new records.)
 */
export function othersUntouched(view: WorldView): true | string {
  const records = view.downstream('dns.example', 'records') as unknown as Remote<DnsRecord>[];
  const targets = new Set(view.list(DNS_ENDPOINT).map((e) => String(e.spec['target'])));
  for (const r of records.filter((x) => FOREIGN_IDS.has(x.id))) {
    if (r.type === 'A' && targets.has(r.value)) return `the record ${r.name} A (id ${r.id}) someone else made was overwritten with ${r.value}`;
    const claim = records.find((x) => x.type === 'TXT' && x.name === r.name && x.value.includes(`external-dns/owner=${OWNER_ID},`));
    if (claim) return `${r.name}, held by a record someone else made (id ${r.id}), is claimed by ${OWNER_ID} (TXT id ${claim.id})`;
  }
  return true;
}

const endpoint = (name: string, dnsName: string, target: string) => ({ apiVersion: 'externaldns.k8s.io/v1alpha1', kind: DNS_ENDPOINT, metadata: { name, namespace: 'default' }, spec: { dnsName, target } });

export const txtRegistry: FalsePositiveCase = {
  name: 'txt-registry',
  description: 'ExternalDNS TXT registry: a DNSEndpoint publishes an A record at a shared DNS provider API with a TXT ownership record made before it and deleted after it, never touching names another owner claims or records made by hand (reported as a Conflict condition)',
  controllers: [txtRegistryController],
  options: {
    // shop is published, moved to a new address at 4 s and renamed at 8 s; legacy asks for a name a person made by hand
    // (never taken) and is deleted at 12 s; shared asks for a name another cluster's registry claims
    story: {
      objects: [endpoint('shop', 'shop.example.com', '10.0.0.1'), endpoint('legacy', 'legacy.example.com', '10.0.0.2'), endpoint('shared', 'shared.example.com', '10.0.0.3')],
      actions: [
        { at: 4000, type: 'patch', kind: DNS_ENDPOINT, key: 'default/shop', patch: { spec: { target: '10.0.0.9' } } },
        { at: 8000, type: 'patch', kind: DNS_ENDPOINT, key: 'default/shop', patch: { spec: { dnsName: 'store.example.com' } } },
        { at: 12_000, type: 'delete', kind: DNS_ENDPOINT, key: 'default/legacy' },
      ],
    },
    // generated: one endpoint at a time (two asking for one free name race for it: whoever is first owns it, by design)
    objects: { kind: DNS_ENDPOINT, name: 'app', spec: [{ dnsName: 'app.example.com', target: '10.1.0.1' }, { dnsName: 'app.example.com', target: '10.1.0.2' }, { dnsName: 'web.example.com', target: '10.1.0.1' }, { dnsName: 'legacy.example.com', target: '10.1.0.3' }] },
    maxObjects: 1,
    downstream: () => ({
      services: [
        fakeRestService({
          baseUrl: DNS_API,
          immutableFields: ['zone', 'name', 'type'],
          latencyMs: 10,
          resources: {
            records: [
              { zone: ZONE, name: 'legacy.example.com', type: 'A', value: '192.0.2.10' },
              { zone: ZONE, name: 'shared.example.com', type: 'TXT', value: 'heritage=external-dns,external-dns/owner=cluster-west,external-dns/resource=service/web/front' },
              { zone: ZONE, name: 'shared.example.com', type: 'A', value: '192.0.2.20' },
            ],
          },
        }),
      ],
      timeoutMs: 5_000,
    }),
  },
  properties: [safetyInvariants({ invariants: { 'records others made are never taken': othersUntouched } })],
  buggy: {
    controllers: [defineTxtRegistry('adopt-unclaimed')],
    caughtBy: ['safety-invariants'],
    why: 'it adopts an A record no TXT claims: the record a person made by hand is claimed, overwritten with its target, and deleted when its endpoint goes',
  },
};
