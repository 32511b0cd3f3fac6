import { describe, expect, it } from 'vitest';
import { workloadReady } from '../../src/environment/workload-ready.js';
import { create, find, obj, ofKind, runEnv, stepTimes } from './helpers.js';

const env = [{ name: 'pod-lifecycle' }, { name: 'pvc-binding' }, { name: 'stateful-set' }];
const db = (replicas: number, extra: Record<string, unknown> = {}) =>
  obj('StatefulSet', 'db', {
    replicas,
    serviceName: 'db',
    selector: { matchLabels: { app: 'db' } },
    template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'pg', image: 'postgres:16' }] } },
    volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } } }],
    ...extra,
  } as never);

describe('statefulSet', () => {
  it('creates ordinal pods in order, each once the previous one is Ready, each with its own bound claim', async () => {
    const { run } = await runEnv({ environment: env, workload: [create(0, db(3))], faultWindowMs: 20_000 });
    // each claim binds 0.5 s after it is created, and the pod waits for it: Ready 2.5 s after creation
    expect(run.writes.filter((w) => w.verb === 'create' && w.kind === 'Pod').map((w) => [w.key, w.t])).toEqual([
      ['default/db-0', 0],
      ['default/db-1', 2500],
      ['default/db-2', 5000],
    ]);
    expect(stepTimes(run, 'statefulset:create-pod')).toEqual([0, 2500, 5000]);
    for (const i of [0, 1, 2]) {
      const p = find(run.finalObjects, 'Pod', `default/db-${i}`)!;
      expect(p.metadata.labels).toMatchObject({ app: 'db', 'statefulset.kubernetes.io/pod-name': `db-${i}`, 'apps.kubernetes.io/pod-index': String(i) });
      expect(p.spec).toMatchObject({ hostname: `db-${i}`, subdomain: 'db', volumes: [{ name: 'data', persistentVolumeClaim: { claimName: `data-db-${i}` } }] });
      expect(find(run.finalObjects, 'PersistentVolumeClaim', `default/data-db-${i}`)!.status).toMatchObject({ phase: 'Bound', capacity: { storage: '10Gi' } });
    }
    const sts = find(run.finalObjects, 'StatefulSet', 'default/db')!;
    expect(sts.status).toMatchObject({ replicas: 3, readyReplicas: 3, observedGeneration: 1 });
    expect(workloadReady(sts)).toBe(true);
  });

  describe('a changed pod template (updateStrategy)', () => {
    const image = (run: { finalObjects: Parameters<typeof ofKind>[0] }) => ofKind(run.finalObjects, 'Pod').map((p) => `${p.metadata.name}=${(p.spec['containers'] as { image: string }[])[0]!.image}`).sort();
    const patchImage = (at: number) => ({ at, type: 'patch' as const, kind: 'StatefulSet', key: 'default/db', patch: { spec: { template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'pg', image: 'postgres:17' }] } } } } });

    it('RollingUpdate (the default) replaces the pods from the highest ordinal, one at a time, each once the set is Ready', async () => {
      const { run } = await runEnv({ environment: env, workload: [create(0, db(3)), patchImage(10_000)], faultWindowMs: 40_000 });
      const deletes = run.writes.filter((w) => w.verb === 'delete' && w.kind === 'Pod' && w.actor !== 'environment:pod-lifecycle');
      expect(deletes.map((w) => w.key)).toEqual(['default/db-2', 'default/db-1', 'default/db-0']);
      // one at a time: the next goes only after the previous one came back Ready
      expect(deletes[1]!.t - deletes[0]!.t).toBeGreaterThan(1000);
      expect(image(run)).toEqual(['db-0=postgres:17', 'db-1=postgres:17', 'db-2=postgres:17']);
      const sts = find(run.finalObjects, 'StatefulSet', 'default/db')!;
      expect(sts.status).toMatchObject({ updatedReplicas: 3, currentReplicas: 3, readyReplicas: 3 });
      expect(sts.status['currentRevision']).toBe(sts.status['updateRevision']);
      expect(stepTimes(run, 'statefulset:update-pod')).toHaveLength(3);
    });

    it('a partition keeps the ordinals below it on the old template', async () => {
      const { run } = await runEnv({ environment: env, workload: [create(0, db(3, { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } })), patchImage(10_000)], faultWindowMs: 40_000 });
      expect(image(run)).toEqual(['db-0=postgres:16', 'db-1=postgres:16', 'db-2=postgres:17']);
      const sts = find(run.finalObjects, 'StatefulSet', 'default/db')!;
      expect(sts.status).toMatchObject({ updatedReplicas: 1, currentReplicas: 2 });
      expect(sts.status['currentRevision']).not.toBe(sts.status['updateRevision']);
    });

    it('OnDelete leaves running pods alone', async () => {
      const { run } = await runEnv({ environment: env, workload: [create(0, db(3, { updateStrategy: { type: 'OnDelete' } })), patchImage(10_000)], faultWindowMs: 40_000 });
      expect(image(run)).toEqual(['db-0=postgres:16', 'db-1=postgres:16', 'db-2=postgres:16']);
    });
  });

  it('Parallel creates every pod at once', async () => {
    const { run } = await runEnv({ environment: env, workload: [create(0, db(3, { podManagementPolicy: 'Parallel', volumeClaimTemplates: [] }))] });
    expect(run.writes.filter((w) => w.verb === 'create' && w.kind === 'Pod').map((w) => [w.t, w.key])).toEqual([
      [0, 'default/db-0'],
      [0, 'default/db-1'],
      [0, 'default/db-2'],
    ]);
  });

  it('scales down from the highest ordinal, keeping the claims', async () => {
    const { run } = await runEnv({ environment: env, workload: [create(0, db(3)), { at: 10_000, type: 'patch', kind: 'StatefulSet', key: 'default/db', patch: { spec: { replicas: 1 } } }], faultWindowMs: 10_000 });
    expect(run.writes.filter((w) => w.verb === 'delete' && w.kind === 'Pod').map((w) => w.key)).toEqual(['default/db-2', 'default/db-1']);
    expect(ofKind(run.finalObjects, 'Pod').map((p) => p.metadata.name)).toEqual(['db-0']);
    expect(ofKind(run.finalObjects, 'PersistentVolumeClaim')).toHaveLength(3);
  });

  it('persistentVolumeClaimRetentionPolicy Delete: claims of ordinals scaled away go, and all go with the StatefulSet', async () => {
    const policy = { persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' } };
    const { run } = await runEnv({
      environment: env,
      workload: [create(0, db(3, policy)), { at: 10_000, type: 'patch', kind: 'StatefulSet', key: 'default/db', patch: { spec: { replicas: 1 } } }, { at: 20_000, type: 'delete', kind: 'StatefulSet', key: 'default/db' }],
      faultWindowMs: 20_000,
    });
    const claimDeletes = run.writes.filter((w) => w.verb === 'delete' && w.kind === 'PersistentVolumeClaim');
    expect(claimDeletes.filter((w) => w.t < 20_000).map((w) => [w.key, w.actor])).toEqual([
      ['default/data-db-2', 'environment:stateful-set'],
      ['default/data-db-1', 'environment:stateful-set'],
    ]);
    // the last claim is a dependent of the StatefulSet: garbage-collected with it
    expect(claimDeletes.filter((w) => w.t >= 20_000).map((w) => [w.key, w.actor])).toEqual([['default/data-db-0', 'environment:garbage-collector']]);
    expect(ofKind(run.finalObjects, 'PersistentVolumeClaim')).toHaveLength(0);
  });

  it('gives a Pending pod back a claim that went before the pod ran, as Kubernetes does (createMissingPersistentVolumeClaims)', async () => {
    // the claim is deleted before it binds (by hand, or with an earlier set of the same name): the
    // pod cannot be scheduled without it, and nothing but the StatefulSet controller makes claims
    const { run } = await runEnv({ environment: env, workload: [create(0, db(1)), { at: 50, type: 'delete', kind: 'PersistentVolumeClaim', key: 'default/data-db-0' }], faultWindowMs: 10_000 });
    expect(run.writes.filter((w) => w.kind === 'PersistentVolumeClaim' && (w.verb === 'create' || w.verb === 'delete')).map((w) => [w.verb, w.actor])).toEqual([
      ['create', 'environment:stateful-set'],
      ['delete', 'user'],
      ['create', 'environment:stateful-set'],
    ]);
    expect(find(run.finalObjects, 'PersistentVolumeClaim', 'default/data-db-0')!.status).toMatchObject({ phase: 'Bound' });
    expect(workloadReady(find(run.finalObjects, 'StatefulSet', 'default/db')!)).toBe(true);
  });

  it('recreates an evicted pod under the same name', async () => {
    const { run } = await runEnv({ environment: env, workload: [create(0, db(1))], faults: { events: [{ kind: 'environment-pod-eviction', at: 5000, target: 'default/db-0' }], background: [] } });
    expect(run.writes.filter((w) => w.key === 'default/db-0' && (w.verb === 'create' || w.verb === 'delete')).map((w) => [w.t, w.actor, w.verb])).toEqual([
      [0, 'environment:stateful-set', 'create'],
      [5000, 'fault:environment-pod-eviction', 'delete'],
      [5000, 'environment:stateful-set', 'create'],
    ]);
    expect(workloadReady(find(run.finalObjects, 'StatefulSet', 'default/db')!)).toBe(true);
  });
});
