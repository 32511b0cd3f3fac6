import { describe, expect, it } from 'vitest';
import { deletionCompletes } from '../../properties/deletion-completes.js';
import { defineController, type ControllerDefinition, type DeleteOptions, type Scenario } from '../../src/index.js';
import { expectFailure, expectQuiet, judgeScenario } from '../helpers/property-laws.js';

/**
 * A controller that stops a Render's Job when the Render is paused. batch/v1 Jobs orphan their
 * Pods when a delete names no propagation policy (kube-apiserver's default, with a warning), so
 * the plain delete leaves the Job's running Pod behind: fluxcd/pkg#670, kubeflow/katib#632.
 */
function renderController(options: DeleteOptions): ControllerDefinition {
  return defineController({
    name: 'render',
    for: 'Render',
    owns: ['Job'],
    async reconcile(ctx) {
      const r = await ctx.client.tryGet<{ paused: boolean }>('Render', ctx.key);
      if (!r) return;
      const name = `${r.metadata.name}-job`;
      const j = await ctx.client.tryGet('Job', { namespace: r.metadata.namespace, name });
      if (r.spec.paused) {
        if (j) await ctx.client.delete('Job', { namespace: r.metadata.namespace, name }, options);
        return;
      }
      if (!j) {
        await ctx.client.create({
          apiVersion: 'batch/v1',
          kind: 'Job',
          metadata: { name, namespace: r.metadata.namespace, ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Render', name: r.metadata.name, uid: r.metadata.uid, controller: true, blockOwnerDeletion: true }] },
          spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'render', image: 'render:1' }] } } },
        });
      }
    },
  });
}

const scenario: Scenario = {
  seed: 1,
  controllers: [{ name: 'render' }],
  environment: [{ name: 'pod-lifecycle', params: { scheduleMs: 0, startMs: 200, readyMs: 100 } }, { name: 'job', params: { durationMs: 60_000 } }],
  initialObjects: [],
  workload: [
    { at: 0, type: 'create', object: { apiVersion: 'example.com/v1', kind: 'Render', metadata: { name: 'sales', namespace: 'default' }, spec: { paused: false } } },
    { at: 3_000, type: 'patch', kind: 'Render', key: 'default/sales', patch: { spec: { paused: true } } },
  ],
  faults: { events: [], background: [] },
  options: { faultWindowMs: 5_000, settleMs: 5_000 },
};

describe('deletion-completes: dependents orphaned by a delete that names no policy', () => {
  it('a Job deleted without a propagationPolicy, its Pod left running, is a finding that quotes the API server', async () => {
    const { verdict, run } = await judgeScenario(deletionCompletes(), scenario, { controllers: [renderController({})] });
    const v = expectFailure(verdict);
    const pod = run.finalObjects.find((o) => o.kind === 'Pod')!;
    expect(pod.metadata.ownerReferences).toEqual([]);
    expect(v.summary).toBe(`orphaned dependents: Job default/sales-job deleted without a propagationPolicy left Pod ${pod.metadata.namespace}/${pod.metadata.name} without an owner`);
    expect(v.explanation).toContain('child pods are preserved by default when jobs are deleted');
    expect(v.explanation).toMatch(/render\/0 deleted Job default\/sales-job at t=3\.\d+ s without a propagationPolicy/);
  });

  it('the same delete with Background takes the Pod too, and holds', async () => {
    const { verdict, run } = await judgeScenario(deletionCompletes(), scenario, { controllers: [renderController({ propagationPolicy: 'Background' })] });
    expectQuiet(verdict);
    expect(run.finalObjects.filter((o) => o.kind === 'Pod')).toEqual([]);
  });

  it('Orphan named on purpose is the design, not a finding', async () => {
    const { verdict } = await judgeScenario(deletionCompletes(), scenario, { controllers: [renderController({ propagationPolicy: 'Orphan' })] });
    expectQuiet(verdict);
  });
});
