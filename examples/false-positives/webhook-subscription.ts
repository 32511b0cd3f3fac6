import { defineController, fakeRestService, type ReconcileContext, type ReconcileResult } from '../../src/index.js';
import { addFinalizer, removeFinalizer } from '../bug-zoo/shared/finalizers.js';
import { jsonApi } from '../bug-zoo/shared/json-api.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A `Webhook` registers a subscription with an external SaaS API. The subscription is found again
 * by its owner tag (so a lost status write or a restart never registers a second one), and
 * created with an idempotency key (so a create whose response was lost returns the first one; the
 * key names the subscription it replaces, so a new one is created after a deletion).
 * Spec changes are patched onto it, edits made in the SaaS console are undone on the periodic
 * re-check, and a finalizer unregisters it before the Webhook goes.
 */
export const WEBHOOK = 'Webhook';
export const HOOKS_API = 'https://hooks.example/v1';
const FINALIZER = 'hooks.example/subscription';

interface WebhookSpec {
  url: string;
  events: string[];
}
interface WebhookStatus {
  subscriptionId?: string;
  observedGeneration?: number;
}
interface Subscription {
  owner: string;
  url: string;
  events: string[];
}

async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
  const w = await ctx.client.tryGet<WebhookSpec, WebhookStatus>(WEBHOOK, ctx.key, { live: true });
  if (!w) return;
  const api = jsonApi(ctx.fetch, HOOKS_API);
  if (w.metadata.deletionTimestamp !== undefined) {
    if (!w.metadata.finalizers.includes(FINALIZER)) return;
    await api.removeOwned('subscriptions', w.metadata.uid);
    await removeFinalizer(ctx, w, FINALIZER);
    return;
  }
  if (await addFinalizer(ctx, w, FINALIZER)) return;
  const want: Subscription = { owner: w.metadata.uid, url: w.spec.url, events: [...w.spec.events].sort() };
  const found = await api.list<Subscription>('subscriptions', { owner: w.metadata.uid });
  let sub = found[0];
  // more than one (a console user cloned it): keep the oldest
  for (const extra of found.slice(1)) await api.removeIfPresent('subscriptions', extra.id);
  // one key per subscription to create: a key reused after the subscription was deleted in the
  // console would only return the deleted one (an idempotency key replays its first response)
  if (!sub) sub = await api.create<Subscription>('subscriptions', want, { idempotencyKey: `${w.metadata.uid}/after-${w.status.subscriptionId ?? 'none'}` });
  else if (sub.url !== want.url || JSON.stringify(sub.events) !== JSON.stringify(want.events)) sub = await api.patch<Subscription>('subscriptions', sub.id, { url: want.url, events: want.events });
  await writeStatus(ctx, w, { subscriptionId: sub.id, observedGeneration: w.metadata.generation });
  return { requeueAfter: 15_000 };
}

export const webhookController = defineController({
  name: 'webhook',
  for: WEBHOOK,
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile,
});

export const webhookSubscription: FalsePositiveCase = {
  name: 'webhook-subscription',
  description: 'a Webhook keeps one subscription at an external SaaS API: found by owner tag, created with an idempotency key, removed behind a finalizer',
  controllers: [webhookController],
  options: {
    objects: { kind: WEBHOOK, name: 'deploys', spec: [{ url: 'https://ci.example/hook', events: ['push'] }, { url: 'https://ci.example/hook2', events: ['push', 'tag'] }] },
    downstream: () => ({ services: [fakeRestService({ baseUrl: HOOKS_API, idempotencyKeyHeader: 'Idempotency-Key', latencyMs: 20 })], timeoutMs: 5_000 }),
  },
  properties: endStateProperties('status.subscriptionId'),
};
