import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { APP, POD, ownerRefTo, podSpecFor, type AppSpec } from '../../../examples/fault-targets/single-child/app.js';
import { singleChildCorrect } from '../../../examples/fault-targets/single-child/correct.js';
import { workload } from '../../../src/arbitrary/workload.js';
import { parseScenario } from '../../../src/harness/scenario.js';
import { defineController } from '../../../src/runtime/define-controller.js';
import type { JsonObject } from '../../../src/store/object.js';
import { fmtUserAction } from '../../../src/report/explain.js';
import { properties } from '../../../properties/index.js';
import { judgeAll } from '../../helpers/property-laws.js';
import { entries, run, scenario } from '../../helpers/fixtures.js';

// Users delete with a foreground cascade (kubectl delete --cascade=foreground, Argo CD's default
// for an Application's resources): the owner stays, terminating, until the garbage collector has
// deleted what it owns. A controller that keeps acting on a terminating owner meets it then.
const create = { at: 0, type: 'create' as const, object: { kind: APP, metadata: { name: 'web', namespace: 'default' }, spec: { image: 'nginx:1' } } };
const foreground = { at: 2000, type: 'delete' as const, kind: APP, key: 'default/web', propagationPolicy: 'Foreground' as const };

/** Makes its Pod whenever it is missing, also while the App is being deleted (it never looks at deletionTimestamp). */
const recreatesWhileDeleting = defineController({
  name: 'recreates-while-deleting',
  for: APP,
  owns: [POD],
  async reconcile(ctx) {
    const app = await ctx.client.tryGet<AppSpec>(APP, ctx.key);
    if (!app) return;
    const name = `${app.metadata.name}-pod`;
    if (!(await ctx.client.tryGet(POD, { namespace: 'default', name }))) {
      await ctx.client.create({ kind: POD, metadata: { name, namespace: 'default', ownerReferences: [{ ...ownerRefTo(app), blockOwnerDeletion: true }] }, spec: podSpecFor(app.spec.image) as unknown as JsonObject });
    }
  },
});

describe('foreground deletion in the workload', () => {
  it('the owner waits, terminating, until what it owns is gone; the trace says how the user deleted', async () => {
    const { run: r } = await run(scenario({ controllers: [{ name: singleChildCorrect.name }], workload: [create, foreground] }), [singleChildCorrect]);
    const del = entries(r.trace, 'user:action').find((e) => e['action'] === 'delete')!;
    expect(fmtUserAction(del)).toBe('the user deleted App default/web in the foreground (what it owns first) at t=2.0 s');
    const marked = r.writes.find((w) => w.kind === APP && w.verb === 'delete' && w.actor === 'user')!;
    expect(marked).toMatchObject({ markedForDeletion: true });
    const appGone = r.writes.find((w) => w.kind === APP && w.removed)!;
    const podGone = r.writes.find((w) => w.kind === POD && w.removed)!;
    expect(podGone.t).toBeLessThanOrEqual(appGone.t);
    expect(r.finalObjects.filter((o) => o.kind === APP || o.kind === POD)).toEqual([]);
  });

  it('a controller that makes children for a terminating owner holds the foreground deletion up (caught); one that stops at deletionTimestamp does not', async () => {
    const s = (c: string) => scenario({ controllers: [{ name: c }], workload: [create, foreground] });
    const buggy = await judgeAll([properties.deletionCompletes(), properties.noHotLoop(), properties.noFighting()], s(recreatesWhileDeleting.name), { controllers: [recreatesWhileDeleting] });
    // each Pod it makes again is deleted by the collector, which never gets to remove the owner's finalizer
    expect(buggy.map((f) => [f.property, f.verdict.summary])).toEqual([['deletion-completes', 'stuck deletion: App default/web marked at t=2.0 s is still there at t=30.0 s (finalizers foregroundDeletion)']]);
    const correct = await judgeAll([properties.deletionCompletes(), properties.noHotLoop(), properties.noFighting()], s(singleChildCorrect.name), { controllers: [singleChildCorrect] });
    expect(correct).toEqual([]);
  });

  it('generated workloads delete in the foreground at every fourth time slot (no extra random draw: seeds keep their scenarios)', () => {
    const w = workload({ objects: [{ kind: APP, spec: { image: 'nginx:1' } }], maxObjects: 1, maxActions: 4, actions: ['delete'] });
    const deletes = fc.sample(w, { seed: 3, numRuns: 60 }).flat().filter((a) => a.type === 'delete');
    expect(deletes.some((a) => a.type === 'delete' && a.propagationPolicy === 'Foreground')).toBe(true);
    expect(deletes.some((a) => a.type === 'delete' && a.propagationPolicy === undefined)).toBe(true);
    for (const a of deletes) if (a.type === 'delete') expect(a.propagationPolicy === 'Foreground').toBe(Math.round((a.at * 100) / 30_000) % 4 === 3);
  });

  it('a scenario file may say how to cascade, and only as kubectl can', () => {
    const base = { seed: 1, controllers: [{ name: 'x' }], initialObjects: [], faults: { events: [], background: [] } };
    expect(() => parseScenario({ ...base, workload: [{ ...foreground, propagationPolicy: 'Orphan' }] })).not.toThrow();
    expect(() => parseScenario({ ...base, workload: [{ ...foreground, propagationPolicy: 'foreground' }] })).toThrow(/must be 'Background', 'Foreground' or 'Orphan'/);
  });
});
