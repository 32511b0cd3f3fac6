import { isStoreError, type Client, type JsonObject, type ReconcileContext, type ReconcileResult, type StoredObject, type WorldView } from '../../../src/index.js';
import { sameJson } from '../../bug-zoo/shared/same-json.js';

/**
 * A `Site` publishes its configuration in one `SiteConfig` object named `<site>-config`, owned by
 * the Site. A SiteConfig of that name that some other object owns is not the controller's to
 * overwrite: the controller waits 2 s for it to go away (its owner may just have been deleted,
 * and the garbage collector removes it a moment later), then reports the name taken
 * (`status.phase: NameTaken`) and leaves the Site alone until its spec changes. Shared by both
 * controllers; they differ only in how they confirm the conflict.
 */
export const SITE = 'Site';
export const SITE_CONFIG = 'SiteConfig';
/** How long a foreign SiteConfig may stand before the name counts as taken. */
export const CONFLICT_AFTER_MS = 2_000;

export interface SiteSpec {
  hostname: string;
  replicas: number;
}
export interface SiteStatus {
  phase?: 'Ready' | 'NameTaken';
  message?: string;
  observedGeneration?: number;
}
export type Site = StoredObject<SiteSpec, SiteStatus>;

function ownedBy(o: StoredObject, uid: string): boolean {
  return o.metadata.ownerReferences.some((r) => r.controller === true && r.uid === uid);
}

/**
 * The reconcile both share. `confirm` decides, once the foreign SiteConfig has stood for 2 s in
 * the cache, whether the name is really taken.
 */
export function reconcileSite(confirm: (ctx: ReconcileContext, cached: StoredObject, site: Site) => Promise<boolean>) {
  // since when each Site (by uid) has seen a foreign SiteConfig, per controller process
  const foreignSince = new WeakMap<Client, Map<string, number>>();
  return async (ctx: ReconcileContext): Promise<ReconcileResult> => {
    const site = await ctx.client.tryGet<SiteSpec, SiteStatus>(SITE, ctx.key);
    if (!site || site.metadata.deletionTimestamp !== undefined) return;
    // a taken name is final for this generation: the user must rename or delete the other object
    if (site.status.phase === 'NameTaken' && site.status.observedGeneration === site.metadata.generation) return;
    const ns = site.metadata.namespace;
    const name = `${site.metadata.name}-config`;
    const want: JsonObject = { hostname: site.spec.hostname, replicas: site.spec.replicas };
    let since = foreignSince.get(ctx.client);
    if (!since) foreignSince.set(ctx.client, (since = new Map()));
    const config = await ctx.client.tryGet(SITE_CONFIG, { namespace: ns, name });
    if (config && !ownedBy(config, site.metadata.uid)) {
      const first = since.get(site.metadata.uid) ?? ctx.clock.now();
      since.set(site.metadata.uid, first);
      if (ctx.clock.now() - first < CONFLICT_AFTER_MS) return { requeueAfter: 500 };
      if (await confirm(ctx, config, site)) {
        await ctx.client.patchStatus(SITE, ctx.key, { status: { phase: 'NameTaken', message: `${SITE_CONFIG} ${name} belongs to another object`, observedGeneration: site.metadata.generation } });
        return;
      }
      return { requeue: true };
    }
    since.delete(site.metadata.uid);
    if (!config) {
      try {
        await ctx.client.create({ kind: SITE_CONFIG, metadata: { name, ...(ns !== undefined ? { namespace: ns } : {}), ownerReferences: [{ kind: SITE, name: site.metadata.name, uid: site.metadata.uid, controller: true }] }, spec: want });
      } catch (err) {
        // the cache has not seen it yet: look again once it has
        if (isStoreError(err, 'AlreadyExists')) return { requeue: true };
        throw err;
      }
    } else if (!sameJson(config.spec, want)) {
      await ctx.client.update({ ...config, spec: want });
    }
    if (site.status.phase !== 'Ready' || site.status.observedGeneration !== site.metadata.generation) {
      await ctx.client.patchStatus(SITE, ctx.key, { status: { phase: 'Ready', message: null, observedGeneration: site.metadata.generation } });
    }
    return undefined;
  };
}

/** Converged: every Site is Ready at its generation, with its SiteConfig in place. */
export function sitesReady(view: WorldView): true | string {
  for (const s of view.list(SITE) as unknown as Site[]) {
    if (s.metadata.deletionTimestamp !== undefined) continue;
    if (s.status.phase !== 'Ready' || s.status.observedGeneration !== s.metadata.generation) return `Site ${s.metadata.name} is ${s.status.phase ?? 'not reconciled'}${s.status.message ? ` (${s.status.message})` : ''} at generation ${s.metadata.generation}`;
  }
  return true;
}
