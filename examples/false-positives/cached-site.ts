import { AlreadyExistsError, defineController, deployment, podLifecycle, type NewObject, type ReconcileContext, type ReconcileResult, type StoredObject } from '../../src/index.js';
import { sameJson } from '../bug-zoo/shared/same-json.js';
import { contains } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { controlledBy, controllerRef } from './_shared/owner.js';
import { deploymentAvailable } from './_shared/pods.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A `StaticSite` serves its pages from a ConfigMap through an nginx Deployment and a Service,
 * written the way most controller-runtime controllers are: every read goes to the informer cache
 * (the default client), never live. Children have fixed names; a create that finds one already
 * there (the cache was behind) requeues instead of reading live; an update carries the cached
 * resourceVersion, so a stale cache gets a 409 and a retry, never a lost write. The only thing the
 * cache cannot be trusted with is ownership: a child controlled by another uid (the site was
 * deleted and recreated) is left to the garbage collector.
 */
export const STATIC_SITE = 'StaticSite';

interface SiteSpec {
  replicas: number;
  pages: Record<string, string>;
}
interface SiteStatus {
  available?: boolean;
  observedGeneration?: number;
}

/**
 * Creates `desired` when the cache has no such object, or updates the fields it names when they
 * differ. False: wait for the cache. `replaceInTheWay` is the buggy twin's mistake: a create that
 * finds the object already there deletes it, to make it again from scratch.
 */
async function ensure(ctx: ReconcileContext, site: StoredObject<unknown, unknown>, desired: NewObject & { metadata: { name: string } }, fields: readonly string[], replaceInTheWay: boolean): Promise<StoredObject | false> {
  const ref = { namespace: desired.metadata.namespace, name: desired.metadata.name };
  const cur = await ctx.client.tryGet(desired.kind, ref);
  if (!cur) {
    try {
      return await ctx.client.create(desired);
    } catch (err) {
      if (!(err instanceof AlreadyExistsError)) throw err;
      if (replaceInTheWay) await ctx.client.delete(desired.kind, ref);
      return false;
    }
  }
  if (!controlledBy(cur, site)) return false;
  const want = desired as unknown as Record<string, unknown>;
  const have = cur as unknown as Record<string, unknown>;
  // a spec is compared by the members it names (the API server defaults the rest); data whole
  if (fields.every((f) => (f === 'spec' ? contains(have[f], want[f]) : sameJson(have[f], want[f])))) return cur;
  const next: Record<string, unknown> = { ...have };
  for (const f of fields) next[f] = want[f];
  return ctx.client.update(next as unknown as StoredObject);
}

const makeReconcile = (replaceInTheWay: boolean) => async (ctx: ReconcileContext): Promise<ReconcileResult> => {
  const site = await ctx.client.tryGet<SiteSpec, SiteStatus>(STATIC_SITE, ctx.key);
  if (!site || site.metadata.deletionTimestamp !== undefined) return;
  const ns = site.metadata.namespace;
  const name = site.metadata.name;
  const owner = [controllerRef(site)];
  const labels = { site: name };
  const pages = await ensure(ctx, site, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-pages`, namespace: ns, ownerReferences: owner }, data: site.spec.pages } as NewObject & { metadata: { name: string } }, ['data'], replaceInTheWay);
  const dep = await ensure(
    ctx,
    site,
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: ns, ownerReferences: owner },
      spec: {
        replicas: site.spec.replicas,
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }], volumes: [{ name: 'pages', configMap: { name: `${name}-pages` } }] } },
      },
    },
    ['spec'],
    replaceInTheWay,
  );
  const svc = await ensure(ctx, site, { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns, ownerReferences: owner }, spec: { selector: labels, ports: [{ name: 'http', port: 80 }] } }, ['spec'], replaceInTheWay);
  if (pages === false || dep === false || svc === false) return { requeueAfter: 1_000 };
  await writeStatus(ctx, site, { available: deploymentAvailable(dep) && dep.spec['replicas'] === site.spec.replicas, observedGeneration: site.metadata.generation });
  return undefined;
};

const define = (replaceInTheWay: boolean) =>
  defineController({
    name: 'cached-site',
    for: STATIC_SITE,
    owns: ['ConfigMap', 'Deployment', 'Service'],
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    reconcile: makeReconcile(replaceInTheWay),
  });

export const cachedSiteController = define(false);

export const cachedSite: FalsePositiveCase = {
  name: 'cached-site',
  description: 'a StaticSite keeps a pages ConfigMap, an nginx Deployment and a Service with every read from the informer cache (controller-runtime\'s default client), optimistic updates and fixed names',
  controllers: [cachedSiteController],
  options: {
    objects: { kind: STATIC_SITE, name: 'docs', spec: [{ replicas: 2, pages: { 'index.html': '<h1>v1</h1>' } }, { replicas: 3, pages: { 'index.html': '<h1>v2</h1>' } }, { replicas: 1, pages: { 'index.html': '<h1>v1</h1>', 'faq.html': '<p>?</p>' } }] },
    environment: [deployment, podLifecycle],
  },
  properties: podEndStateProperties(),
  buggy: {
    controllers: [define(true)],
    caughtBy: ['no-extra-destructive-actions'],
    why: 'a create that finds its child already there (the cache was behind) deletes the child to make it again: a destructive action on a stale view',
  },
};
