import { defineController } from '../../../src/index.js';
import { AUDIT, CONFIG, type ConfigSpec } from './audit.js';

/**
 * Buggy: writes an audit entry on every reconcile, named by the server (`generateName`). It
 * assumes one reconcile per change, which holds until an event is delivered twice (a watch
 * replay), a resync fires, or the process restarts: each extra reconcile is an extra entry.
 */
export const auditBuggy = defineController({
  name: 'audit-buggy',
  for: CONFIG,
  resyncPeriodMs: 0,
  async reconcile(ctx) {
    const cfg = await ctx.client.tryGet<ConfigSpec>(CONFIG, ctx.key);
    if (!cfg) return;
    await ctx.client.create({
      kind: AUDIT,
      metadata: { generateName: `${cfg.metadata.name}-`, namespace: cfg.metadata.namespace },
      spec: { config: cfg.metadata.name, configUid: cfg.metadata.uid, generation: cfg.metadata.generation, data: cfg.spec.data },
    });
  },
});
