import { describe, expect, it } from 'vitest';
import { create, find, obj, ofKind, runEnv } from './helpers.js';

/**
 * kube-controller-manager's ControllerRefManager (A-1, red team round 10): a workload deleted with
 * `--cascade=orphan` and created again takes back the objects its selector matches, and an object
 * whose labels stop matching is released. Without adoption the new Deployment made a second
 * ReplicaSet name-clash (same template, same name) and never became Available; the new StatefulSet
 * found its pod names taken and stayed at 0 ready.
 */
const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1' }] } };
const web = () => obj('Deployment', 'web', { replicas: 2, selector: { matchLabels: { app: 'web' } }, template } as never);
const db = () => obj('StatefulSet', 'db', { replicas: 2, serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'pg', image: 'postgres:16' }] } } } as never);
const orphanDelete = (kind: string, key: string, at: number) => ({ at, type: 'delete' as const, kind, key, propagationPolicy: 'Orphan' as const });

describe('adoption of orphans (ClaimReplicaSets, ClaimPods)', () => {
  it('a Deployment deleted with --cascade=orphan and created again adopts its ReplicaSet, which keeps its pods', async () => {
    const { run } = await runEnv({ environment: [{ name: 'pod-lifecycle' }, { name: 'deployment' }], workload: [create(0, web()), orphanDelete('Deployment', 'default/web', 5000), create(8000, web())] });
    const d = find(run.finalObjects, 'Deployment', 'default/web')!;
    const rs = ofKind(run.finalObjects, 'ReplicaSet');
    expect(rs).toHaveLength(1);
    expect(rs[0]!.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Deployment', uid: d.metadata.uid, controller: true })]);
    expect(d.status).toMatchObject({ replicas: 2, readyReplicas: 2, availableReplicas: 2 });
    // the pods were never orphaned (their ReplicaSet stayed): the same two, created before the deletion
    const pods = ofKind(run.finalObjects, 'Pod');
    expect(pods).toHaveLength(2);
    expect(run.writes.filter((w) => w.verb === 'create' && w.kind === 'Pod').every((w) => w.t < 5000)).toBe(true);
  });

  it('a ReplicaSet adopts orphaned pods its selector matches instead of making more, and releases a pod relabelled away', async () => {
    const rs = obj('ReplicaSet', 'web', { replicas: 2, selector: { matchLabels: { app: 'web' } }, template } as never);
    const { run } = await runEnv({
      environment: [{ name: 'pod-lifecycle' }, { name: 'deployment' }],
      workload: [
        create(0, obj('Pod', 'stray', { containers: [{ name: 'web', image: 'nginx:1' }] } as never, { labels: { app: 'web' } } as never)),
        create(1000, rs),
        { at: 6000, type: 'patch', kind: 'Pod', key: 'default/stray', patch: { metadata: { labels: { app: 'debug' } } } },
      ],
    });
    const set = find(run.finalObjects, 'ReplicaSet', 'default/web')!;
    const stray = find(run.finalObjects, 'Pod', 'default/stray')!;
    // adopted at 1 s (one pod made beside it), released at 6 s (and replaced)
    expect(run.writes.filter((w) => w.verb === 'create' && w.kind === 'Pod' && w.actor === 'environment:deployment').map((w) => w.t)).toEqual([1000, 6000]);
    expect(stray.metadata.ownerReferences).toEqual([]);
    const owned = ofKind(run.finalObjects, 'Pod').filter((p) => p.metadata.ownerReferences.some((r) => r.uid === set.metadata.uid && r.controller === true));
    expect(owned).toHaveLength(2);
    expect(set.status).toMatchObject({ replicas: 2, readyReplicas: 2 });
  });

  it('a StatefulSet deleted with --cascade=orphan and created again adopts its pods by name', async () => {
    const { run } = await runEnv({ environment: [{ name: 'pod-lifecycle' }, { name: 'stateful-set' }], workload: [create(0, db()), orphanDelete('StatefulSet', 'default/db', 8000), create(10_000, db())], faultWindowMs: 20_000 });
    const sts = find(run.finalObjects, 'StatefulSet', 'default/db')!;
    for (const i of [0, 1]) expect(find(run.finalObjects, 'Pod', `default/db-${i}`)!.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'StatefulSet', uid: sts.metadata.uid, controller: true })]);
    expect(sts.status).toMatchObject({ replicas: 2, readyReplicas: 2 });
    expect(run.writes.filter((w) => w.verb === 'create' && w.kind === 'Pod').every((w) => w.t < 8000)).toBe(true);
  });

  it('leaves alone a pod its selector matches that is not named after the set', async () => {
    const { run } = await runEnv({
      environment: [{ name: 'pod-lifecycle' }, { name: 'stateful-set' }],
      workload: [create(0, obj('Pod', 'db-extra', { containers: [{ name: 'pg', image: 'postgres:16' }] } as never, { labels: { app: 'db' } } as never)), create(100, db())],
      faultWindowMs: 10_000,
    });
    expect(find(run.finalObjects, 'Pod', 'default/db-extra')!.metadata.ownerReferences).toEqual([]);
  });
});
