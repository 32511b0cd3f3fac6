import { defineController, type ReconcileContext } from '../../src/index.js';
import { apply } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { setCondition, writeStatus, type Condition } from './_shared/status.js';

/**
 * Two controllers share one object's status, as Gateway API implementations share a route's
 * `status.parents` or as several controllers set their own condition on a Node: the `publisher`
 * serves a `Site` (a ConfigMap it owns) and sets the `Published` condition; the `registrar`
 * registers its hostname (an Endpoint-like ConfigMap it owns) and sets `Registered`. Each writes
 * only its own condition, through optimistic updates that keep the other's (a 409 is retried),
 * never a merge patch that would replace the whole list.
 */
export const SITE = 'Site';

interface SiteSpec {
  hostname: string;
  content: string;
}
interface SiteStatus {
  conditions?: Condition[];
}

/** Sets this controller's condition, keeping every other one (update with the resourceVersion read). */
async function setOwnCondition(ctx: ReconcileContext, type: string, reason: string, message: string): Promise<void> {
  const site = await ctx.client.tryGet<SiteSpec, SiteStatus>(SITE, ctx.key, { live: true });
  if (!site) return;
  const conditions = setCondition(site.status.conditions, { type, status: 'True', reason, message, observedGeneration: site.metadata.generation }, ctx.clock.now());
  await writeStatus(ctx, site, { conditions });
}

/**
 * The buggy twins' write: a JSON merge patch of `status.conditions` with only this controller's
 * condition. A merge patch replaces a list whole, so each controller erases the other's condition.
 */
async function patchOwnCondition(ctx: ReconcileContext, type: string, reason: string, message: string): Promise<void> {
  const site = await ctx.client.tryGet<SiteSpec, SiteStatus>(SITE, ctx.key, { live: true });
  if (!site) return;
  const mine = setCondition(undefined, { type, status: 'True', reason, message, observedGeneration: site.metadata.generation }, ctx.clock.now())[0]!;
  const have = site.status.conditions?.find((c) => c.type === type);
  if (have && have.reason === mine.reason && have.message === mine.message && have.observedGeneration === mine.observedGeneration) return;
  await ctx.client.patchStatus(SITE, ctx.key, { status: { conditions: [mine] } } as never);
}

type SetCondition = (ctx: ReconcileContext, type: string, reason: string, message: string) => Promise<void>;

const publishWith = (set: SetCondition) => async (ctx: ReconcileContext): Promise<void> => {
  const site = await ctx.client.tryGet<SiteSpec, SiteStatus>(SITE, ctx.key, { live: true });
  if (!site || site.metadata.deletionTimestamp !== undefined) return;
  await apply(ctx, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${site.metadata.name}-content`, namespace: site.metadata.namespace, ownerReferences: [controllerRef(site)] }, data: { 'index.html': site.spec.content } });
  await set(ctx, 'Published', 'ContentServed', `serving ${site.spec.content.length} bytes`);
};

const registerWith = (set: SetCondition) => async (ctx: ReconcileContext): Promise<void> => {
  const site = await ctx.client.tryGet<SiteSpec, SiteStatus>(SITE, ctx.key, { live: true });
  if (!site || site.metadata.deletionTimestamp !== undefined) return;
  await apply(ctx, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${site.metadata.name}-dns`, namespace: site.metadata.namespace, labels: { 'dns.example.com/record': 'true' }, ownerReferences: [controllerRef(site)] }, data: { hostname: site.spec.hostname } });
  await set(ctx, 'Registered', 'RecordCreated', `registered ${site.spec.hostname}`);
};

const publisher = (set: SetCondition) => defineController({ name: 'publisher', for: SITE, owns: ['ConfigMap'], resyncPeriodMs: RESYNC_MS, reconcile: publishWith(set) });
const registrar = (set: SetCondition) => defineController({ name: 'registrar', for: SITE, owns: ['ConfigMap'], resyncPeriodMs: RESYNC_MS, reconcile: registerWith(set) });
export const publisherController = publisher(setOwnCondition);
export const registrarController = registrar(setOwnCondition);

export const sharedStatus: FalsePositiveCase = {
  name: 'shared-status',
  description: 'two controllers share a Site\'s status, each setting only its own condition with optimistic updates that keep the other\'s (Gateway API style)',
  controllers: [publisherController, registrarController],
  options: {
    objects: { kind: SITE, name: 'blog', spec: [{ hostname: 'blog.example.com', content: '<h1>hi</h1>' }, { hostname: 'www.blog.example.com', content: '<h1>hello</h1>' }] },
  },
  buggy: {
    controllers: [publisher(patchOwnCondition), registrar(patchOwnCondition)],
    caughtBy: ['no-fighting', 'convergence', 'same-end-state', 'idempotence', 'no-hot-loop'],
    // the two fight from the first write on; a run of a fight writes all through the settle phase
    // (a guess's confirmation and the determinism check run it to its end: short phases keep this
    // twin's check near 4 s, not the 9 s that became 60 s under the suite's load)
    world: { faultWindowMs: 3_000, settleMs: 5_000 },
    why: 'each sets its condition with a JSON merge patch of status.conditions, which replaces the list whole and erases the other controller\'s condition',
  },
};
