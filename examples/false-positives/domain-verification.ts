import { http, HttpResponse } from 'msw';
import { defineController, fakeRestService, fromVirtualTimestamp, type ReconcileContext, type ReconcileResult } from '../../src/index.js';
import { addFinalizer, removeFinalizer } from '../bug-zoo/shared/finalizers.js';
import { jsonApi } from '../bug-zoo/shared/json-api.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';
import { setCondition, writeStatus, type Condition } from './_shared/status.js';

/**
 * A `DomainClaim` proves control of a domain to an external verifier (Google Search Console /
 * ACME DNS-01 style): it publishes a TXT record at a DNS API, then asks the verifier, which sees
 * the record only after DNS propagation, and polls with `requeueAfter` (slower as it waits) until it is verified. The
 * record is found by owner tag, kept while the claim exists (re-verification needs it) and removed
 * behind a finalizer.
 */
export const DOMAIN_CLAIM = 'DomainClaim';
export const DNS_API = 'https://dns.example/v1';
export const VERIFY_API = 'https://verify.example/v1';
const FINALIZER = 'verify.example/txt-record';
/** Polls start every 2 s and slow down as the claim ages (half its age, at most 30 s), as cert-manager's do. */
const pollMs = (ageMs: number): number => Math.min(30_000, Math.max(2_000, Math.round(ageMs / 2)));

interface DomainClaimSpec {
  domain: string;
}
interface DomainClaimStatus {
  observedGeneration?: number;
  conditions?: Condition[];
}
interface TxtRecord {
  owner: string;
  name: string;
  value: string;
}

async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
  const c = await ctx.client.tryGet<DomainClaimSpec, DomainClaimStatus>(DOMAIN_CLAIM, ctx.key, { live: true });
  if (!c) return;
  const dns = jsonApi(ctx.fetch, DNS_API);
  if (c.metadata.deletionTimestamp !== undefined) {
    if (!c.metadata.finalizers.includes(FINALIZER)) return;
    await dns.removeOwned('records', c.metadata.uid);
    await removeFinalizer(ctx, c, FINALIZER);
    return;
  }
  if (await addFinalizer(ctx, c, FINALIZER)) return;
  const want: TxtRecord = { owner: c.metadata.uid, name: `_verify.${c.spec.domain}`, value: `verify=${c.metadata.uid}` };
  const records = await dns.list<TxtRecord>('records', { owner: c.metadata.uid });
  const keep = records.find((r) => r.name === want.name && r.value === want.value);
  for (const r of records) if (r !== keep) await dns.removeIfPresent('records', r.id);
  if (!keep) await dns.create<TxtRecord>('records', want);
  const res = await ctx.fetch(`${VERIFY_API}/check?name=${encodeURIComponent(want.name)}&value=${encodeURIComponent(want.value)}`);
  const verified = res.ok && ((await res.json()) as { verified?: boolean }).verified === true;
  const conditions = setCondition(
    c.status.conditions,
    { type: 'Verified', status: verified ? 'True' : 'False', reason: verified ? 'RecordFound' : res.ok ? 'Propagating' : `Verifier${res.status}`, message: want.name, observedGeneration: c.metadata.generation },
    ctx.clock.now(),
  );
  await writeStatus(ctx, c, { observedGeneration: c.metadata.generation, conditions });
  // verified: re-check now and then (the record may be removed); not yet: poll
  return { requeueAfter: verified ? 30_000 : pollMs(ctx.clock.now() - fromVirtualTimestamp(c.metadata.creationTimestamp)) };
}

export const domainClaimController = defineController({
  name: 'domain-claim',
  for: DOMAIN_CLAIM,
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile,
});

export const domainVerification: FalsePositiveCase = {
  name: 'domain-verification',
  description: 'a DomainClaim publishes a TXT record and polls an external verifier with requeueAfter until the record has propagated',
  controllers: [domainClaimController],
  options: {
    objects: { kind: DOMAIN_CLAIM, name: 'shop', spec: [{ domain: 'shop.example.com' }, { domain: 'www.shop.example.com' }] },
    downstream: () => {
      const dns = fakeRestService({ baseUrl: DNS_API, latencyMs: 20 });
      // the verifier sees a record from its third look on (DNS propagation), as long as it is there
      const looks = new Map<string, number>();
      const verifier = http.get(`${VERIFY_API}/check`, ({ request }) => {
        const q = new URL(request.url).searchParams;
        const present = dns.resources('records').some((r) => r['name'] === q.get('name') && r['value'] === q.get('value'));
        const n = present ? (looks.get(q.toString()) ?? 0) + 1 : 0;
        looks.set(q.toString(), n);
        return HttpResponse.json({ verified: n >= 3 });
      });
      return { services: [dns], handlers: [verifier], timeoutMs: 5_000 };
    },
  },
  properties: endStateProperties(),
};
