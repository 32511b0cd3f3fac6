import { defineController, isStoreError } from '../../../src/index.js';
import { RESYNC_MS } from '../resync.js';
import { AUDIT, CONFIG, type ConfigSpec } from './audit.js';

/**
 * Correct: the side effect is idempotent. The entry is named after what it records (the
 * Config's uid and generation), so a second reconcile of the same change gets AlreadyExists. It
 * reads the entry first, so the reconciles that change nothing (a duplicated event, a resync)
 * send no write at all.
 */
export const auditCorrect = defineController({
  name: 'audit-correct',
  for: CONFIG,
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const cfg = await ctx.client.tryGet<ConfigSpec>(CONFIG, ctx.key);
    if (!cfg) return;
    const name = `${cfg.metadata.name}-${cfg.metadata.uid}-g${cfg.metadata.generation}`;
    if (await ctx.client.tryGet(AUDIT, { namespace: cfg.metadata.namespace, name }, { live: true })) return; // already on record
    try {
      await ctx.client.create({
        kind: AUDIT,
        metadata: { name, namespace: cfg.metadata.namespace },
        spec: { config: cfg.metadata.name, configUid: cfg.metadata.uid, generation: cfg.metadata.generation, data: cfg.spec.data },
      });
    } catch (err) {
      if (!isStoreError(err, 'AlreadyExists')) throw err; // this change is already on record
    }
  },
});
