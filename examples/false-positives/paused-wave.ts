import { defineController, fromVirtualTimestamp, virtualTimestamp, type ReconcileContext, type ReconcileResult, type StoredObject } from '../../src/index.js';
import { apply } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A `Wave` rolls a new image over its shards one at a time (a fleet update in waves, as
 * Deployment's `paused` and Argo Rollouts' pause allow): each shard is a ConfigMap holding the
 * image it runs, one shard moves every `STEP_MS`, and `spec.paused` stops the wave where it is.
 * Where a paused wave stands depends on when the pause came: a controller that came to a step a
 * little later has moved one shard fewer. That is the product (a pause freezes the fleet as it
 * is), not a fault's mark; same-end-state still says otherwise (PENDING_ORACLE_FIXES in
 * test/helpers/false-positives.ts says why). The buggy twin to add once it does: reading the
 * pause from the cache (a shard moved after the user paused).
 */
export const WAVE = 'Wave';
const SHARDS = 4;
const STEP_MS = 2_000;

interface WaveSpec {
  image: string;
  paused: boolean;
}
interface WaveStatus {
  updated?: number;
  lastStepAt?: string;
  phase?: 'Progressing' | 'Paused' | 'Complete';
}

type Wave = StoredObject<WaveSpec, WaveStatus>;

async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
  // a pause must hold from the moment it is written: read live, not from a cache that may not show it yet
  const w: Wave | undefined = await ctx.client.tryGet<WaveSpec, WaveStatus>(WAVE, ctx.key, { live: true });
  if (!w || w.metadata.deletionTimestamp !== undefined) return;
  const ns = w.metadata.namespace;
  const name = (i: number) => `${w.metadata.name}-shard-${i}`;
  const shards = await Promise.all(Array.from({ length: SHARDS }, (_, i) => ctx.client.tryGet('ConfigMap', { namespace: ns, name: name(i) })));
  const shard = (i: number, image: string) => apply(ctx, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: name(i), namespace: ns, ownerReferences: [controllerRef(w)] }, data: { image } });
  const imageOf = (s: (typeof shards)[number]) => (s?.['data'] as Record<string, string> | undefined)?.['image'];
  // a shard that does not exist yet starts on the wave's image: there is nothing running to move
  for (let i = 0; i < SHARDS; i++) if (shards[i] === undefined) shards[i] = await shard(i, w.spec.image);
  const done = shards.filter((s) => imageOf(s) === w.spec.image).length;
  if (done === SHARDS) {
    await writeStatus(ctx, w, { updated: done, phase: 'Complete', ...(w.status.lastStepAt !== undefined ? { lastStepAt: w.status.lastStepAt } : {}) });
    return;
  }
  if (w.spec.paused) {
    await writeStatus(ctx, w, { ...w.status, updated: done, phase: 'Paused' });
    return;
  }
  const now = ctx.clock.now();
  const last = w.status.lastStepAt !== undefined ? fromVirtualTimestamp(w.status.lastStepAt) : undefined;
  if (last !== undefined && now - last < STEP_MS) return { requeueAfter: STEP_MS - (now - last) };
  const next = shards.findIndex((s) => imageOf(s) !== w.spec.image);
  await shard(next, w.spec.image);
  await writeStatus(ctx, w, { updated: done + 1, phase: 'Progressing', lastStepAt: virtualTimestamp(now) });
  return { requeueAfter: STEP_MS };
}

export const pausedWaveController = defineController({ name: 'paused-wave', for: WAVE, owns: ['ConfigMap'], leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile });

export const pausedWave: FalsePositiveCase = {
  name: 'paused-wave',
  description: 'a Wave rolls a new image over four shard ConfigMaps one every 2 s, and spec.paused stops it where it is (a pause freezes the fleet as it is)',
  controllers: [pausedWaveController],
  options: {
    objects: {
      kind: WAVE,
      name: 'fleet',
      spec: [
        { image: 'app:1', paused: false },
        { image: 'app:2', paused: false },
        { image: 'app:2', paused: true },
      ],
    },
  },
  // when the last step was taken is the clock's
  properties: endStateProperties('status.lastStepAt'),
};
