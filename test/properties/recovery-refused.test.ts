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

// red team rt46 FA-1b (no fault at all): a controller that keeps its last valid render while the
// spec is one the API server refuses (a ConfigMap key with a space), as Flux and Argo CD keep the
// last applied revision. Refused → valid → refused again: the run without the excursion never
// rendered anything, the run with it keeps the valid render. The earlier end state is an error
// state; nothing to restore.
function lastKnownGood(merge: boolean) {
  return defineController({
    name: 'keys',
    for: 'KeySet',
    owns: ['ConfigMap'],
    async reconcile(ctx) {
      const k = await ctx.client.tryGet<{ entries: Record<string, string> }>('KeySet', ctx.key, { live: true });
      if (!k) return;
      const ref = { namespace: k.metadata.namespace, name: `${k.metadata.name}-keys` };
      const cm = await ctx.client.tryGet('ConfigMap', ref, { live: true });
      try {
        if (!cm) await ctx.client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { ...ref, ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'KeySet', name: k.metadata.name, uid: k.metadata.uid, controller: true }] }, data: k.spec.entries } as never);
        // the buggy twin merges the entries into what is there: a key dropped from the spec stays
        else await ctx.client.update({ ...cm, data: merge ? { ...(cm as unknown as { data?: Record<string, string> }).data, ...k.spec.entries } : k.spec.entries } as never);
      } catch (err) {
        if ((err as { reason?: string }).reason !== 'Invalid') throw err;
      }
    },
  });
}
const keysRevert = (first: Record<string, string>, away: Record<string, string>): Scenario => ({
  seed: 1,
  controllers: [{ name: 'keys' }],
  initialObjects: [],
  workload: [
    { at: 0, type: 'create', object: { apiVersion: 'example.com/v1', kind: 'KeySet', metadata: { name: 'app', namespace: 'default' }, spec: { entries: first } } },
    { at: 2000, type: 'update', kind: 'KeySet', key: 'default/app', spec: { entries: away } },
    { at: 4000, type: 'update', kind: 'KeySet', key: 'default/app', spec: { entries: first } },
  ],
  faults: { events: [], background: [] },
  options: { faultWindowMs: 6_000, settleMs: 6_000 },
});

describe('recovery and an earlier end state the API refused', () => {
  it('does not judge a revert to a spec whose children the API refused in the run without the excursion (a last-known-good controller)', async () => {
    const { verdict } = await judgeScenario(recovery(), keysRevert({ 'bad key': 'x' }, { mode: 'a' }), { controllers: [lastKnownGood(false)] });
    expect(verdict).toMatchObject({ ok: true, judged: false });
    expect((verdict as { why: string }).why).toMatch(/^in the run without the change, the API refused \(Invalid\) the create of ConfigMap default\/app-keys that a reconcile of KeySet default\/app made at t=[\d.]+ s, its last: /);
  });

  it('still judges, and fails, a controller that does not restore a valid earlier state (a dropped key kept)', async () => {
    const v = expectFailure((await judgeScenario(recovery(), keysRevert({ mode: 'a' }, { mode: 'a', extra: '1' }), { controllers: [lastKnownGood(true)] })).verdict);
    expect(v.summary).toMatch(/^no recovery: reverting KeySet default\/app at t=4\.0 s did not restore the earlier state/);
  });
});
