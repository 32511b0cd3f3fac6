import { describe, expect, it } from 'vitest';
import { create, find, obj, runEnv } from './helpers.js';

const claim = obj('PersistentVolumeClaim', 'data', { accessModes: ['ReadWriteMany'], resources: { requests: { storage: '3Gi' } } });

describe('pvcBinding', () => {
  it('a claim is Pending at once (the API server defaults it) and Bound bindMs later, with a volume name and capacity', async () => {
    const { run } = await runEnv({ environment: [{ name: 'pvc-binding', params: { bindMs: 700 } }], workload: [create(100, claim)] });
    expect(find(run.finalObjects, 'PersistentVolumeClaim', 'default/data')!.spec['volumeMode']).toBe('Filesystem');
    expect(run.writes.filter((w) => w.actor === 'environment:pvc-binding').map((w) => [w.t, w.verb, w.changed.join(',')])).toEqual([
      [800, 'patch', 'spec.volumeName'],
      [800, 'patchStatus', 'status.accessModes,status.capacity,status.phase'],
    ]);
    const pvc = find(run.finalObjects, 'PersistentVolumeClaim', 'default/data')!;
    // named after the claim, so the same claim gets the same volume name in every run
    expect(pvc.spec['volumeName']).toMatch(/^pvc-[0-9a-f]{8}$/);
    const again = await runEnv({ environment: [{ name: 'pvc-binding' }], workload: [create(0, obj('ConfigMap', 'x')), create(5, claim)] });
    expect(find(again.run.finalObjects, 'PersistentVolumeClaim', 'default/data')!.spec['volumeName']).toBe(pvc.spec['volumeName']);
    expect(pvc.status).toEqual({ phase: 'Bound', accessModes: ['ReadWriteMany'], capacity: { storage: '3Gi' } });
  });

  it('a grown request of a Bound claim is Resizing, then the capacity follows resizeMs later; a smaller one changes nothing', async () => {
    const grow = { at: 2000, type: 'patch' as const, kind: 'PersistentVolumeClaim', key: 'default/data', patch: { spec: { resources: { requests: { storage: '5Gi' } } } } };
    const { run } = await runEnv({ environment: [{ name: 'pvc-binding', params: { bindMs: 500, resizeMs: 1000 } }], workload: [create(0, claim), grow] });
    expect(run.writes.filter((w) => w.actor === 'environment:pvc-binding' && w.t >= 2000).map((w) => [w.t, w.changed.join(',')])).toEqual([
      [2000, 'status.conditions'],
      [3000, 'status.capacity.storage,status.conditions'],
    ]);
    const pvc = find(run.finalObjects, 'PersistentVolumeClaim', 'default/data')!;
    expect(pvc.status).toEqual({ phase: 'Bound', accessModes: ['ReadWriteMany'], capacity: { storage: '5Gi' } });
    expect(run.trace.filter((e) => e.type === 'environment:step' && e['step'] === 'pvc:resized')).toHaveLength(1);
  });

  it('binds claims that exist before it is installed', async () => {
    const { run } = await runEnv({ environment: [{ name: 'pvc-binding' }], initialObjects: [claim], workload: [] });
    expect(find(run.finalObjects, 'PersistentVolumeClaim', 'default/data')!.status['phase']).toBe('Bound');
  });
});
