import { AlreadyExistsError, defineController, type JsonObject, type NewObject, type ReconcileContext, type ReconcileResult, type StoredObject, type WorldView } from '../../src/index.js';
import { safetyInvariants } from '../../properties/safety-invariants.js';
import { deleteIfPresent } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A synthetic-monitoring operator sharded without leader election, as Prometheus Operator's
 * shards and Argo CD's application controller are: SHARDS replicas (one StatefulSet ordinal
 * each) watch every `Probe`, and each runs only the Probes whose stable hash of namespace/name,
 * modulo SHARDS, is its own index. On any Probe's event a shard rebuilds its prober's config
 * (a ConfigMap `probes-shard-<i>` per namespace, one entry per Probe it runs: what its prober pod
 * loads) from a live list, and stamps the status of the Probes it runs with its index. The hash
 * is of the key alone, so the replicas agree on every Probe's owner whatever their caches hold
 * and in whatever order they list it: no Probe is ever in two shards' configs (probed twice,
 * alerting twice), the invariant below.
 *
 * Found by the hunt (fixed here, each a controller bug): (1) same-end-state, 5/600, event-loss
 * or crash-restart: a namespace's last Probe deleted while its DELETED notification was lost, or
 * while the shard was down (a restarted informer's first list has no tombstone for it), stayed in
 * the config for good, since no Probe of that namespace was left to enqueue a rebuild and the
 * resync enqueues only cached Probes; so a shard watches its config, which enqueues every Probe
 * it names (on its resync and on the first list after a restart). (2) same-end-state, 2/600,
 * crash-restart or watch-disconnect: a shard made an empty config on the first event it saw of
 * another shard's Probe, so whether it had one depended on whether it was up while a short-lived
 * Probe existed; so a shard with no Probe has no config (it deletes it with its last Probe).
 * (3) no-extra-destructive-actions, 16/1,000, second-replica: rebuilt from the cache, two active
 * replicas of one shard deleted and re-created its config in turn while one cache was behind; so
 * the list is live (as the corpus's creating controllers read, see index.ts).
 *
 * Its buggy twin splits by position: a shard takes the Probes at its index modulo SHARDS in the
 * list it just read. Two lists that differ (one cache behind, or listed in another order) disagree
 * on positions, so two shards both run one Probe, or none does.
 */
export const PROBE = 'Probe';
const SHARDS = 2;
const CONFIG = (i: number) => `probes-shard-${i}`;

interface ProbeSpec {
  target: string;
  intervalSeconds: number;
}
interface ProbeStatus {
  shard?: number;
  observedGeneration?: number;
}

/**
 * FNV-1a of the key with murmur3's final mix: stable across replicas, restarts and list orders
 * (FNV's low bit alone is the parity of the characters' low bits, so without the mix modulo 2 puts
 * `checkout` and `checkout-1` on one shard).
 */
function shardOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  return (h >>> 0) % SHARDS;
}

const keyOf = (o: StoredObject<unknown, unknown>) => (o.metadata.namespace !== undefined ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name);

/** The Probes of `probes` (one list read) that shard `index` runs: by hash (correct) or by position in the list (the buggy twin). */
type Split = (probes: readonly StoredObject[], index: number) => StoredObject[];
const byHash: Split = (probes, index) => probes.filter((p) => shardOf(keyOf(p)) === index);
const byPosition: Split = (probes, index) => probes.filter((_, at) => at % SHARDS === index);

const reconciler = (index: number, split: Split) => async (ctx: ReconcileContext): Promise<ReconcileResult> => {
  const ns = ctx.key.includes('/') ? ctx.key.slice(0, ctx.key.indexOf('/')) : undefined;
  const probes = (await ctx.client.list(PROBE, { ...(ns !== undefined ? { namespace: ns } : {}), live: true })).filter((p) => p.metadata.deletionTimestamp === undefined);
  const mine = split(probes, index);
  const want: Record<string, string> = {};
  for (const p of mine) want[p.metadata.name] = JSON.stringify({ target: p.spec['target'], interval: `${String(p.spec['intervalSeconds'])}s` });
  const ref = { namespace: ns, name: CONFIG(index) };
  const cm = await ctx.client.tryGet('ConfigMap', ref, { live: true });
  if (!cm) {
    if (mine.length === 0) return; // no Probe to run: no config
    try {
      await ctx.client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ref.name, ...(ns !== undefined ? { namespace: ns } : {}) }, data: want } as NewObject);
    } catch (err) {
      if (!(err instanceof AlreadyExistsError)) throw err;
      return { requeue: true }; // made by an earlier attempt our cache has not seen yet: rebuild again
    }
  } else if (mine.length === 0) {
    // its last Probe is gone: so is the config (whether a shard ever made one must not depend on what it happened to see)
    await deleteIfPresent(ctx, 'ConfigMap', ref, { uid: cm.metadata.uid, resourceVersion: cm.metadata.resourceVersion });
    return;
  } else {
    const have = (cm['data'] ?? {}) as Record<string, string>;
    const patch: Record<string, string | null> = {};
    for (const [k, v] of Object.entries(want)) if (have[k] !== v) patch[k] = v;
    for (const k of Object.keys(have)) if (!(k in want)) patch[k] = null;
    if (Object.keys(patch).length > 0) await ctx.client.patch('ConfigMap', ref, { data: patch } as JsonObject);
  }
  const p = mine.find((x) => keyOf(x) === ctx.key);
  if (p && ((p.status as ProbeStatus).shard !== index || (p.status as ProbeStatus).observedGeneration !== p.metadata.generation)) {
    const live = await ctx.client.tryGet<ProbeSpec, ProbeStatus>(PROBE, ctx.key, { live: true });
    if (live && live.metadata.deletionTimestamp === undefined) await writeStatus(ctx, live, { shard: index, observedGeneration: live.metadata.generation });
  }
  return;
};

/** A shard's config enqueues the Probes it lists (so its resync, and its first list after a restart, rebuild it even when every Probe it names is gone). */
const entriesOf = (index: number) => (cm: StoredObject): string[] =>
  cm.metadata.name === CONFIG(index) ? Object.keys((cm['data'] ?? {}) as Record<string, unknown>).map((name) => (cm.metadata.namespace !== undefined ? `${cm.metadata.namespace}/${name}` : name)) : [];

const shard = (index: number, split: Split) =>
  defineController({ name: `probe-shard-${index}`, for: PROBE, watches: [{ kind: 'ConfigMap', map: entriesOf(index) }], leaderElection: false, resyncPeriodMs: RESYNC_MS, reconcile: reconciler(index, split) });

export const probeShards = Array.from({ length: SHARDS }, (_, i) => shard(i, byHash));
/** The buggy twin's shards: they split by position in the list they read (see the file's comment). */
export const probeShardsByPosition = Array.from({ length: SHARDS }, (_, i) => shard(i, byPosition));

/** At every step, no Probe is in two shards' configs (two probers would probe it, and alert, twice). */
export function probedOnce(view: WorldView): true | string {
  const seen = new Map<string, number>();
  for (const cm of view.list('ConfigMap')) {
    const m = /^probes-shard-(\d+)$/.exec(cm.metadata.name);
    if (!m) continue;
    for (const name of Object.keys((cm['data'] ?? {}) as Record<string, unknown>)) {
      const key = `${cm.metadata.namespace ?? ''}/${name}`;
      const other = seen.get(key);
      if (other !== undefined) return `Probe ${key} is in the configs of shards ${other} and ${m[1]!}`;
      seen.set(key, Number(m[1]));
    }
  }
  return true;
}

export const probeShardsCase: FalsePositiveCase = {
  name: 'probe-shards',
  description: 'two replicas of a Probe operator shard the Probes without leader election, each reconciling those whose stable hash of namespace/name falls on its index',
  controllers: probeShards,
  options: {
    objects: { kind: PROBE, name: 'checkout', spec: [{ target: 'https://shop.example/checkout', intervalSeconds: 30 }, { target: 'https://shop.example/checkout', intervalSeconds: 10 }] },
  },
  properties: [...endStateProperties(), safetyInvariants({ invariants: { 'every Probe is run by one shard': probedOnce } })],
  buggy: {
    controllers: probeShardsByPosition,
    caughtBy: ['safety-invariants'],
    why: 'its shards split the Probes by position in the lists they read, which differ when one cache is behind or a list comes back in another order, so one Probe lands in both shards\' configs',
    world: { maxObjects: 3 },
  },
};
