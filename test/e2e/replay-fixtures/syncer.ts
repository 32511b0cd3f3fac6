import { defineController, fakeRestService, type CheckOptions, type ReconcileContext } from '../../../src/index.js';

/**
 * A controller that syncs each Record to an external API (a fake REST service) and reports the
 * external id in status. The buggy variant stamps `status.lastSyncTime` on every reconcile: a hot
 * loop, but only when the external API answers (without it every reconcile throws first), which
 * is exactly how a replay without the check's downstream used to pass.
 */
export const API = 'https://records.example/v1';

async function externalId(ctx: ReconcileContext, name: string): Promise<string> {
  const found = await ctx.fetch(`${API}/items?name=${name}`);
  if (!found.ok) throw new Error(`list: ${found.status}`);
  const items = (await found.json()) as { id: string }[];
  if (items[0]) return items[0].id;
  const created = await ctx.fetch(`${API}/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
  if (!created.ok) throw new Error(`create: ${created.status}`);
  return ((await created.json()) as { id: string }).id;
}

function syncer(stamp: boolean) {
  return defineController({
    name: 'syncer',
    for: 'Record',
    resyncPeriodMs: 5_000,
    async reconcile(ctx) {
      const rec = await ctx.client.tryGet<{ value: string }, { id?: string; observedGeneration?: number; lastSyncTime?: number }>('Record', ctx.key);
      if (!rec) return;
      const id = await externalId(ctx, rec.metadata.name);
      if (!stamp && rec.status.id === id && rec.status.observedGeneration === rec.metadata.generation) return;
      await ctx.client.updateStatus({ ...rec, status: { id, observedGeneration: rec.metadata.generation, ...(stamp ? { lastSyncTime: ctx.clock.now() } : {}) } });
    },
  });
}

export const buggySyncer = syncer(true);
export const fixedSyncer = syncer(false);

export const checkOptions: CheckOptions = {
  objects: { kind: 'Record', name: 'r', spec: [{ value: 'a' }] },
  downstream: () => ({ services: [fakeRestService({ baseUrl: API, name: 'records-api' })] }),
  faultWindowMs: 2_000,
  settleMs: 3_000,
  tailMs: 4_000,
};
