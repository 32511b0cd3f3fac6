import { defineController } from '../../../src/index.js';
import { RESYNC_MS } from '../resync.js';
import { BUCKET, POLICY, type PolicySpec } from './policy.js';

/**
 * Correct: a bucket missing from the cache may only be one whose watch is behind, so the
 * controller asks the API server before it deletes anything (and deletes with a uid precondition).
 */
export const policyReaperCorrect = defineController({
  name: 'policy-reaper-correct',
  for: POLICY,
  watches: [{ kind: BUCKET, map: (b, ctx) => ctx.list(POLICY, { namespace: b.metadata.namespace ?? '' }).filter((p) => p.spec['bucket'] === b.metadata.name).map((p) => `${p.metadata.namespace}/${p.metadata.name}`) }],
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const p = await ctx.client.tryGet<PolicySpec>(POLICY, ctx.key);
    if (!p) return;
    const ref = { namespace: p.metadata.namespace, name: p.spec.bucket };
    if (await ctx.client.tryGet(BUCKET, ref)) return;
    if (await ctx.client.tryGet(BUCKET, ref, { live: true })) return;
    await ctx.client.delete(POLICY, ctx.key, { preconditions: { uid: p.metadata.uid } });
  },
});
