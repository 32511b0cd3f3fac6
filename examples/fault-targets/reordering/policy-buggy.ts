import { defineController } from '../../../src/index.js';
import { BUCKET, POLICY, type PolicySpec } from './policy.js';

/**
 * Buggy: takes "its bucket is not in my cache" for "its bucket is gone" and deletes the policy.
 * Each kind is its own watch: when the Bucket watch is behind the BucketPolicy one, a new
 * policy's bucket is not cached yet and the policy is deleted for nothing.
 */
export const policyReaperBuggy = defineController({
  name: 'policy-reaper-buggy',
  for: POLICY,
  watches: [{ kind: BUCKET, map: (b, ctx) => ctx.list(POLICY, { namespace: b.metadata.namespace ?? '' }).filter((p) => p.spec['bucket'] === b.metadata.name).map((p) => `${p.metadata.namespace}/${p.metadata.name}`) }],
  async reconcile(ctx) {
    const p = await ctx.client.tryGet<PolicySpec>(POLICY, ctx.key);
    if (!p) return;
    if (!(await ctx.client.tryGet(BUCKET, { namespace: p.metadata.namespace, name: p.spec.bucket }))) await ctx.client.delete(POLICY, ctx.key, { preconditions: { uid: p.metadata.uid } });
  },
});
