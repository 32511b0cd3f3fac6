import { describe, expect, it } from 'vitest';
import { workloadReady } from '../../src/environment/workload-ready.js';
import { condition, create, find, nonEnvironmentWrites, obj, ofKind, runEnv, statusAt, stepTimes, watchStatus } from './helpers.js';

const template = (image: string) => ({ metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } });
const web = (replicas: number, extra: Record<string, unknown> = {}) => obj('Deployment', 'web', { replicas, selector: { matchLabels: { app: 'web' } }, template: template('nginx:1'), ...extra } as never);
const cluster = [{ name: 'pod-lifecycle' }, { name: 'deployment' }];

describe('deployment', () => {
  it('gives a Deployment a ReplicaSet and pods, and reports Available once the pods are Ready', async () => {
    const { run } = await runEnv({ environment: cluster, workload: [create(0, web(3))] });
    const rs = ofKind(run.finalObjects, 'ReplicaSet');
    expect(rs).toHaveLength(1);
    expect(rs[0]!.metadata.name).toMatch(/^web-[0-9a-f]{8}$/);
    expect(rs[0]!.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Deployment', name: 'web', controller: true })]);
    const pods = ofKind(run.finalObjects, 'Pod');
    expect(pods).toHaveLength(3);
    for (const p of pods) {
      expect(p.metadata.labels).toEqual({ app: 'web', 'pod-template-hash': rs[0]!.metadata.labels['pod-template-hash'] });
      expect(p.metadata.ownerReferences[0]).toMatchObject({ kind: 'ReplicaSet', uid: rs[0]!.metadata.uid, controller: true });
    }
    const d = find(run.finalObjects, 'Deployment', 'default/web')!;
    expect(d.status).toMatchObject({ observedGeneration: 1, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3, unavailableReplicas: 0 });
    expect(condition(d, 'Available')).toEqual({ status: 'True', at: 2100 });
    expect(condition(d, 'Progressing')?.status).toBe('True');
    expect(workloadReady(d)).toBe(true);
    expect(nonEnvironmentWrites(run)).toEqual([]);
  });

  it('is not Available while pods start, and says why', async () => {
    const { run } = await runEnv({ environment: cluster, workload: [create(0, web(3))], faultWindowMs: 2000, settleMs: 0 });
    const d = find(run.finalObjects, 'Deployment', 'default/web')!;
    expect(condition(d, 'Available')?.status).toBe('False');
    expect(workloadReady(d)).toBe('Deployment default/web: Available=False (0/3 available)');
  });

  it('tolerates maxUnavailable pods (25 % rounded down by default)', async () => {
    // 4 replicas: 1 may be unavailable, so the Deployment is Available with 3 of them
    const { run } = await runEnv({
      environment: cluster,
      workload: [create(0, web(4))],
      faults: { events: [{ kind: 'environment-pod-never-ready', nth: 0 }], background: [] },
      options: { probes: [watchStatus('Deployment', 'default/web', 4000)] },
    });
    const during = statusAt(run, 'Deployment', 'default/web', 4000);
    expect(during).toMatchObject({ availableReplicas: 3, unavailableReplicas: 1, conditions: [expect.objectContaining({ type: 'Available', status: 'True' }), expect.anything()] });
    // faults stop at 10 s: the probe passes and the fourth pod turns Ready
    expect(find(run.finalObjects, 'Deployment', 'default/web')!.status).toMatchObject({ availableReplicas: 4, unavailableReplicas: 0 });
  });

  it('scales: surplus pods are deleted, missing ones created', async () => {
    const { run } = await runEnv({
      environment: cluster,
      workload: [create(0, web(3)), { at: 5000, type: 'patch', kind: 'Deployment', key: 'default/web', patch: { spec: { replicas: 1 } } }],
    });
    expect(ofKind(run.finalObjects, 'Pod')).toHaveLength(1);
    expect(find(run.finalObjects, 'Deployment', 'default/web')!.status).toMatchObject({ observedGeneration: 2, replicas: 1, availableReplicas: 1 });
    expect(run.writes.filter((w) => w.verb === 'delete' && w.kind === 'Pod').map((w) => w.t)).toEqual([5000, 5000]);
  });

  it('rolls out a new template: a new ReplicaSet, the old one scaled to zero once the new one is available, then removed', async () => {
    const { run } = await runEnv({
      environment: cluster,
      workload: [create(0, web(2)), { at: 5000, type: 'patch', kind: 'Deployment', key: 'default/web', patch: { spec: { template: template('nginx:2') } } }],
    });
    const rs = ofKind(run.finalObjects, 'ReplicaSet');
    expect(rs.map((r) => [r.spec['replicas'], r.status['replicas']])).toEqual([[2, 2]]);
    const oldRs = run.writes.find((w) => w.kind === 'ReplicaSet' && w.verb === 'create')!.key;
    expect(oldRs).not.toBe(`default/${rs[0]!.metadata.name}`);
    expect(stepTimes(run, 'replicaset:scaled', oldRs)).toEqual([0, 7100]);
    expect(run.writes.filter((w) => w.key === oldRs && w.verb === 'delete').map((w) => w.t)).toEqual([7100]);
    const d = find(run.finalObjects, 'Deployment', 'default/web')!;
    // the old pods kept serving during the rollout
    expect(condition(d, 'Available')).toEqual({ status: 'True', at: 2100 });
    expect(d.status['conditions']).toContainEqual(expect.objectContaining({ type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' }));
    expect(ofKind(run.finalObjects, 'Pod').every((p) => (p.spec['containers'] as { image: string }[])[0]!.image === 'nginx:2')).toBe(true);
  });

  it('keeps revisionHistoryLimit old ReplicaSets, scaled to zero', async () => {
    const { run } = await runEnv({
      environment: cluster,
      workload: [create(0, web(1, { revisionHistoryLimit: 1 })), { at: 5000, type: 'patch', kind: 'Deployment', key: 'default/web', patch: { spec: { template: template('nginx:2') } } }],
    });
    // by replicas: the objects come in key order (their names end in a template hash), not in creation order
    expect(ofKind(run.finalObjects, 'ReplicaSet').map((r) => r.spec['replicas']).sort()).toEqual([0, 1]);
  });

  it('Recreate: the old pods go first, then the new ReplicaSet starts', async () => {
    const { run } = await runEnv({
      environment: cluster,
      workload: [create(0, web(2, { strategy: { type: 'Recreate' } })), { at: 5000, type: 'patch', kind: 'Deployment', key: 'default/web', patch: { spec: { template: template('nginx:2') } } }],
    });
    const d = find(run.finalObjects, 'Deployment', 'default/web')!;
    expect(condition(d, 'Available')).toEqual({ status: 'True', at: 7100 });
    expect(ofKind(run.finalObjects, 'Pod')).toHaveLength(2);
  });

  it('replaces an evicted pod', async () => {
    const { run } = await runEnv({
      environment: cluster,
      workload: [create(0, web(3))],
      faults: { events: [{ kind: 'environment-pod-eviction', at: 5000, params: { node: 1 } }], background: [] },
    });
    const evicted = run.writes.filter((w) => w.actor === 'fault:environment-pod-eviction');
    expect(evicted).toHaveLength(1);
    const d = find(run.finalObjects, 'Deployment', 'default/web')!;
    expect(condition(d, 'Available')).toEqual({ status: 'True', at: 7100 });
    expect(ofKind(run.finalObjects, 'Pod')).toHaveLength(3);
  });
});
