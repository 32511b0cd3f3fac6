import { defineController, type ReconcileContext, type StoredObject } from '../../src/index.js';
import { fakeRestService } from '../../src/downstream/fake-rest-service.js';
import type { CreateDownstreamOptions } from '../../src/downstream/intercept.js';

/**
 * A DNS-record controller with an external API and a finalizer: each `Domain` owns one record
 * at `https://dns.example/records` (`owner` = the Domain's key). The correct one looks the
 * record up by owner before creating (with an idempotency key, for two replicas that look at the
 * same moment), deletes it before removing its finalizer, and retries failures through the
 * rate-limited queue. Buggy variants break one property each.
 */
export const DOMAIN = 'Domain';
export const FINALIZER = 'dns.example/cleanup';
const API = 'https://dns.example/records';

/** A fresh fake DNS service per run. */
export function dnsDownstream(): CreateDownstreamOptions {
  return { services: [fakeRestService({ baseUrl: 'https://dns.example', idempotencyKeyHeader: 'Idempotency-Key' })] };
}

export function domain(name: string, host = `${name}.example.com`) {
  return { kind: DOMAIN, metadata: { name, namespace: 'default' }, spec: { host } };
}

type Domain = StoredObject<{ host: string }, { recordId?: string; observedGeneration?: number }>;

async function records(ctx: ReconcileContext): Promise<{ id: string }[]> {
  const res = await ctx.fetch(`${API}?owner=${encodeURIComponent(ctx.key)}`);
  if (!res.ok) throw new Error(`GET records: ${res.status}`);
  return (await res.json()) as { id: string }[];
}

async function createRecord(ctx: ReconcileContext, d: Domain, idempotencyKey?: string): Promise<string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(idempotencyKey !== undefined ? { 'Idempotency-Key': idempotencyKey } : {}) };
  const res = await ctx.fetch(API, { method: 'POST', headers, body: JSON.stringify({ owner: ctx.key, host: d.spec.host }) });
  if (!res.ok) throw new Error(`POST record: ${res.status}`);
  return ((await res.json()) as { id: string }).id;
}

async function removeFinalizer(ctx: ReconcileContext, d: Domain): Promise<void> {
  await ctx.client.update({ ...d, metadata: { ...d.metadata, finalizers: d.metadata.finalizers.filter((f) => f !== FINALIZER) } });
}

async function ensure(ctx: ReconcileContext, d: Domain, lookup: boolean): Promise<void> {
  if (!d.metadata.finalizers.includes(FINALIZER)) {
    await ctx.client.update({ ...d, metadata: { ...d.metadata, finalizers: [...d.metadata.finalizers, FINALIZER] } });
    return;
  }
  let id = d.status.recordId;
  if (lookup) {
    const found = (await records(ctx))[0] as { id: string; host?: string } | undefined;
    id = found?.id;
    // repair drift: the record is ours, so its host follows the spec
    if (found && found.host !== d.spec.host) {
      const res = await ctx.fetch(`${API}/${found.id}`, { method: 'PATCH', body: JSON.stringify({ host: d.spec.host }) });
      if (!res.ok) throw new Error(`PATCH record: ${res.status}`);
    }
    // a lagging cache may still show a Domain already deleted: create only for the live one
    const live = await ctx.client.tryGet(DOMAIN, ctx.key, { live: true });
    if (!live || live.metadata.uid !== d.metadata.uid || live.metadata.deletionTimestamp !== undefined) return;
  }
  // two processes that both found nothing (a second replica, a split brain) send the same key,
  // so the service creates one record; the key names the record it replaces, so a lost one is replaced
  if (id === undefined) id = await createRecord(ctx, d, lookup ? `${d.metadata.uid}/${d.status.recordId ?? 'first'}` : undefined);
  if (d.status.recordId === id && d.status.observedGeneration === d.metadata.generation) return;
  await ctx.client.updateStatus({ ...d, status: { recordId: id, observedGeneration: d.metadata.generation } });
}

function dnsController(onDelete: (ctx: ReconcileContext, d: Domain) => Promise<void>, lookup = true) {
  return defineController({
    name: 'dns',
    for: DOMAIN,
    resyncPeriodMs: 5_000,
    async reconcile(ctx) {
      const d = (await ctx.client.tryGet(DOMAIN, ctx.key)) as Domain | undefined;
      if (!d) return;
      if (d.metadata.deletionTimestamp !== undefined) {
        if (d.metadata.finalizers.includes(FINALIZER)) await onDelete(ctx, d);
        return;
      }
      await ensure(ctx, d, lookup);
    },
  });
}

/** Deletes every record it owns (404 is fine: already gone), then removes the finalizer. */
export const dnsCorrect = dnsController(async (ctx, d) => {
  for (const r of await records(ctx)) {
    const res = await ctx.fetch(`${API}/${r.id}`, { method: 'DELETE' });
    if (!res.ok && res.status !== 404) throw new Error(`DELETE record: ${res.status}`);
  }
  await removeFinalizer(ctx, d);
});

/** Deletes the record but never removes its finalizer: the Domain stays Terminating forever (deletion-completes). */
export const dnsStuckBuggy = dnsController(async (ctx) => {
  for (const r of await records(ctx)) await ctx.fetch(`${API}/${r.id}`, { method: 'DELETE' });
});

/** Removes the finalizer without deleting the record: the record leaks (deletion-completes). */
export const dnsLeakBuggy = dnsController(async (ctx, d) => removeFinalizer(ctx, d));

/** Creates without looking up by owner first: a create whose response was lost is repeated (no-duplicate-side-effects). */
export const dnsNoLookupBuggy = dnsController(async (ctx, d) => removeFinalizer(ctx, d), false);
