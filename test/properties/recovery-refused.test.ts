import { describe, expect, it } from 'vitest';
import { recovery } from '../../properties/recovery.js';
import { defineController, podLifecycle } from '../../src/index.js';
import type { Scenario, WorkloadAction } from '../../src/harness/scenario.js';
import { expectFailure, judgeScenario } from '../helpers/property-laws.js';

// The corpus' ready-backends runs (2 in 300, fault ablation: none): the workload set a Pod's spec
// back with an `update` that left out the spec.nodeName the scheduler had set; the API refuses
// it (Invalid: a Pod's spec is immutable but for images and a few fields), so the revert never
// happened, and recovery compared a run whose Pod kept web:1 with one that never left web:2.
// (`update` is kubectl apply of the spec now and keeps a field nobody declared; a revert that
// clears the binding itself is refused the same way.)

const pod = (image: string) => ({ containers: [{ name: 'web', image }] });

/** Annotates each Pod with the highest image tag it ever saw (a high-water mark: no recovery). */
const highWater = defineController({
  name: 'pins',
  for: 'Pod',
  resyncPeriodMs: 0,
  async reconcile(ctx) {
    const p = await ctx.client.tryGet('Pod', ctx.key);
    if (!p) return;
    const image = String((p.spec['containers'] as { image: string }[])[0]!.image);
    const seen = p.metadata.annotations['example.com/max-image'];
    if (seen !== undefined && seen >= image) return;
    await ctx.client.update({ ...p, metadata: { ...p.metadata, annotations: { ...p.metadata.annotations, 'example.com/max-image': image } } });
  },
});

const podRevert = (back: WorkloadAction): Scenario => ({
  seed: 1,
  controllers: [{ name: 'pins' }],
  environment: [{ name: 'pod-lifecycle' }],
  initialObjects: [],
  workload: [
    { at: 0, type: 'create', object: { kind: 'Pod', metadata: { name: 'web-0', namespace: 'default', labels: { app: 'web' } }, spec: pod('web:1') } },
    { at: 1000, type: 'patch', kind: 'Pod', key: 'default/web-0', patch: { spec: pod('web:2') } },
    back,
  ],
  faults: { events: [], background: [] },
  options: { faultWindowMs: 5_000, settleMs: 10_000 },
});
const side = { controllers: [highWater], options: { environment: [podLifecycle] } };

describe('recovery and a revert the API refused', () => {
  it('does not judge a revert that never happened (an update refused as Invalid), and says why', async () => {
    const { verdict, run } = await judgeScenario(recovery(), podRevert({ at: 3000, type: 'patch', kind: 'Pod', key: 'default/web-0', patch: { spec: { ...pod('web:1'), nodeName: null } } }), side);
    expect(run.trace.filter((e) => e.type === 'user:action' && e.t === 3000).map((e) => e['error'])).toEqual(['Invalid']);
    expect(verdict).toEqual({ ok: true, judged: false, why: 'the revert of Pod default/web-0 at t=3.0 s was refused (Invalid): its spec never went back, so there is no earlier state to restore' });
  });

  it('still fails the same controller when the revert is accepted (a spec patch back to web:1)', async () => {
    const v = expectFailure((await judgeScenario(recovery(), podRevert({ at: 3000, type: 'patch', kind: 'Pod', key: 'default/web-0', patch: { spec: pod('web:1') } }), side)).verdict);
    expect(v.summary).toMatch(/no recovery: reverting Pod default\/web-0 at t=3\.0 s did not restore the earlier state/);
    expect(v.explanation).toMatch(/example\.com\/max-image/);
  });
});
