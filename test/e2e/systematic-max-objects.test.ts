import { describe, expect, it } from 'vitest';
import { checkSystematic } from '../../src/harness/systematic.js';
import { defineController } from '../../src/index.js';
import { allFaults } from '../../faults/index.js';
import { noFighting } from '../../properties/no-fighting.js';

/**
 * Systematic mode honours `maxObjects` (rt51): its default base scenarios include one that creates
 * two objects, which judged worlds the user had bounded to one (a KEDA-style ScaledObject, one per
 * target as KEDA's admission webhook enforces, fought a second one over the target's size in the
 * reference run: 4,496 of 5,000 plans failed). A pin that sets a shared ConfigMap's value to its
 * own is correct alone and fights a second pin: with maxObjects 1 systematic mode makes no second.
 */
const pin = defineController({
  name: 'pin',
  for: 'Pin',
  async reconcile(ctx) {
    const p = await ctx.client.tryGet<{ value: string }>('Pin', ctx.key, { live: true });
    if (!p) return;
    const ref = { namespace: p.metadata.namespace, name: 'pinned' };
    const cm = await ctx.client.tryGet('ConfigMap', ref, { live: true });
    if (!cm) await ctx.client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: ref, data: { value: p.spec.value } });
    else if ((cm['data'] as Record<string, string> | undefined)?.['value'] !== p.spec.value) await ctx.client.patch('ConfigMap', ref, { data: { value: p.spec.value } });
    // it checks again every half second (a fight of two is slow, so the test is cheap)
    return { requeueAfter: 500 };
  },
});
const options = { objects: { kind: 'Pin', name: 'pin', spec: [{ value: 'a' }, { value: 'b' }] }, faults: allFaults, properties: [noFighting()], faultWindowMs: 3000, settleMs: 3000, depth: 1 as const, strategies: ['crash-after-write' as const], maxPlans: 1 };

describe('checkSystematic and maxObjects', () => {
  it('makes its two-object base scenario by default (two pins fight)', { timeout: 30_000 }, async () => {
    const r = await checkSystematic(pin, options);
    expect(r.ok ? 'passed' : r.property).toBe('no-fighting');
  });
  it('makes no second object with maxObjects 1 (one pin is quiet)', { timeout: 30_000 }, async () => {
    const r = await checkSystematic(pin, { ...options, maxObjects: 1 });
    expect(r.ok ? 'passed' : `${r.property}: ${r.summary}`).toBe('passed');
  });
});
