import { describe, expect, it } from 'vitest';
import type { NewObject } from '../../../src/store/object.js';
import type { ObjectStore } from '../../../src/store/store.js';
import { failure, makeStore } from './helpers.js';

/**
 * The scale subresource in the store (red team round 10 S-1: it was missing, so an autoscaler that
 * scales through `deployments/scale` did nothing). As kube-apiserver's ScaleREST: the Scale shows
 * the object's metadata and replicas, a write changes only spec replicas as a spec write of the
 * object, recorded as the caller's update or patch of it.
 */

const ref = { namespace: 'default', name: 'web' };

function deployment(store: ObjectStore): void {
  store.create('user', {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }, { key: 'canary', operator: 'DoesNotExist' }] },
      template: { metadata: { labels: { app: 'web', tier: 'a' } }, spec: { containers: [{ name: 'c', image: 'app:1' }] } },
    },
  } as NewObject);
  store.patch('environment:deployment', 'Deployment', ref, { status: { replicas: 2 } }, { subresource: 'status' });
}

const CRD: NewObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'workers.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { kind: 'Worker', plural: 'workers' },
    versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {}, scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.ready', labelSelectorPath: '.status.selector' } } }],
  },
};

describe('the scale subresource (store)', () => {
  it('reads a Deployment as an autoscaling/v1 Scale: its metadata, spec and status replicas, the selector as a string', () => {
    const { store } = makeStore();
    deployment(store);
    const d = store.peek('Deployment', 'default/web')!;
    expect(store.getScale('Deployment', ref)).toEqual({
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'web', namespace: 'default', uid: d.metadata.uid, resourceVersion: d.metadata.resourceVersion, creationTimestamp: d.metadata.creationTimestamp },
      spec: { replicas: 2 },
      status: { replicas: 2, selector: 'app=web,!canary,tier in (a,b)' },
    });
  });

  it('a write changes only spec.replicas, bumps resourceVersion and generation, and is recorded as the caller\'s update of the Deployment', () => {
    const { store, take } = makeStore();
    deployment(store);
    const before = store.peek('Deployment', 'default/web')!;
    take();
    const scale = store.updateScale('controller:scaler/0', 'Deployment', { metadata: { name: 'web', namespace: 'default', resourceVersion: before.metadata.resourceVersion }, spec: { replicas: 5 } });
    const after = store.peek('Deployment', 'default/web')!;
    expect(after.spec['replicas']).toBe(5);
    expect({ ...after.spec, replicas: 2 }).toEqual(before.spec);
    expect(after.status).toEqual(before.status);
    expect(after.metadata.generation).toBe(before.metadata.generation + 1);
    expect(scale).toMatchObject({ metadata: { resourceVersion: after.metadata.resourceVersion }, spec: { replicas: 5 }, status: { replicas: 2 } });
    expect(take()).toMatchObject([{ actor: 'controller:scaler/0', verb: 'update', kind: 'Deployment', key: 'default/web', changed: ['spec.replicas'], noop: false }]);
    // the same replicas again: a no-op write (recorded, no new resourceVersion)
    store.patchScale('user', 'Deployment', ref, { spec: { replicas: 5 } });
    expect(take()).toMatchObject([{ actor: 'user', verb: 'patch', kind: 'Deployment', noop: true }]);
    expect(store.peek('Deployment', 'default/web')!.metadata.resourceVersion).toBe(after.metadata.resourceVersion);
  });

  it('409 for a stale resourceVersion or another uid, 422 for negative replicas, 404 for a missing object or a kind without the subresource; each refusal recorded', () => {
    const { store, take } = makeStore();
    deployment(store);
    const rv = store.peek('Deployment', 'default/web')!.metadata.resourceVersion;
    store.patch('user', 'Deployment', ref, { metadata: { labels: { x: 'y' } } });
    take();
    const stale = failure(() => store.updateScale('controller:s/0', 'Deployment', { metadata: { name: 'web', namespace: 'default', resourceVersion: rv }, spec: { replicas: 0 } }));
    expect(stale).toMatchObject({ reason: 'Conflict', code: 409 });
    expect(failure(() => store.patchScale('controller:s/0', 'Deployment', ref, { spec: { replicas: 0 } }, { resourceVersion: rv })).reason).toBe('Conflict');
    expect(failure(() => store.updateScale('controller:s/0', 'Deployment', { metadata: { name: 'web', namespace: 'default', uid: 'other' }, spec: { replicas: 0 } })).message).toContain('Precondition failed: UID in precondition: other');
    const negative = failure(() => store.patchScale('controller:s/0', 'Deployment', ref, { spec: { replicas: -1 } }));
    expect(negative).toMatchObject({ reason: 'Invalid', code: 422, causes: [{ field: 'spec.replicas', type: 'FieldValueInvalid', body: 'Invalid value: -1: must be greater than or equal to 0' }] });
    expect(failure(() => store.getScale('Deployment', { namespace: 'default', name: 'nope' })).reason).toBe('NotFound');
    expect(failure(() => store.updateScale('controller:s/0', 'Deployment', { metadata: { name: 'nope', namespace: 'default' }, spec: { replicas: 1 } })).reason).toBe('NotFound');
    store.create('user', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web', namespace: 'default' } } as NewObject);
    expect(failure(() => store.getScale('ConfigMap', ref)).message).toContain('ConfigMap has no scale subresource');
    expect(take().map((w) => `${w.verb} ${w.kind} ${w.error ?? ''}`)).toEqual(['update Deployment Conflict', 'patch Deployment Conflict', 'update Deployment Conflict', 'patch Deployment Invalid', 'update Deployment NotFound', 'create ConfigMap ']);
    expect(store.peek('Deployment', 'default/web')!.spec['replicas']).toBe(2);
  });

  it('a custom resource whose CRD declares subresources.scale: its paths; 500 on read and 400-like on a patch while the replicas field is missing', () => {
    const { store, take } = makeStore();
    store.create('user', CRD);
    store.create('user', { apiVersion: 'example.com/v1', kind: 'Worker', metadata: { name: 'w', namespace: 'default' }, spec: { image: 'x' } } as NewObject);
    const w = { namespace: 'default', name: 'w' };
    expect(failure(() => store.getScale('Worker', w))).toMatchObject({ code: 500, message: 'the spec replicas field ".spec.size" does not exist' });
    expect(failure(() => store.patchScale('user', 'Worker', w, { metadata: { labels: { a: 'b' } } })).message).toBe('the spec replicas field ".spec.size" cannot be empty');
    take();
    store.updateScale('controller:s/0', 'Worker', { metadata: { name: 'w', namespace: 'default' }, spec: { replicas: 3 } });
    expect(take()).toMatchObject([{ verb: 'update', kind: 'Worker', changed: ['spec.size'], noop: false }]);
    store.patch('controller:s/0', 'Worker', w, { status: { ready: 1, selector: 'app=w' } }, { subresource: 'status' });
    expect(store.getScale('Worker', w)).toMatchObject({ spec: { replicas: 3 }, status: { replicas: 1, selector: 'app=w' } });
    expect(failure(() => store.patchScale('user', 'Worker', w, { spec: { replicas: -2 } })).message).toContain('.spec.size: Invalid value: -2: should be a non-negative integer');
    expect(store.peek('Worker', 'default/w')!.metadata.generation).toBe(2);
  });

  it("a custom kind with subresources.scale: the CRD's validator checks its replicas and selector fields on every write, not only through the Scale", () => {
    const { store, take } = makeStore();
    store.create('user', CRD);
    const w = { namespace: 'default', name: 'w' };
    const create = failure(() => store.create('user', { apiVersion: 'example.com/v1', kind: 'Worker', metadata: { name: 'w', namespace: 'default' }, spec: { size: -1 } } as NewObject));
    expect(create).toMatchObject({ code: 422, causes: [{ field: '.spec.size', type: 'FieldValueInvalid', body: 'Invalid value: -1: should be a non-negative integer' }] });
    store.create('user', { apiVersion: 'example.com/v1', kind: 'Worker', metadata: { name: 'w', namespace: 'default' }, spec: { size: 1 } } as NewObject);
    take();
    expect(failure(() => store.patch('controller:w/0', 'Worker', w, { spec: { size: 2147483648 } })).message).toContain('.spec.size: Invalid value: 2147483648: should be less than or equal to 2147483647');
    expect(failure(() => store.patch('controller:w/0', 'Worker', w, { status: { ready: 1.5 } }, { subresource: 'status' })).message).toContain('.status.ready: Invalid value: 0: .status.ready accessor error: 1.5 is of the type float64, expected int64');
    expect(failure(() => store.patch('controller:w/0', 'Worker', w, { status: { selector: { app: 'w' } } }, { subresource: 'status' })).message).toContain('.status.selector: Invalid value: "": .status.selector accessor error: {"app":"w"} is of the type map[string]interface {}, expected string');
    expect(take().map((x) => `${x.verb} ${x.error ?? ''}`)).toEqual(['patch Invalid', 'patchStatus Invalid', 'patchStatus Invalid']);
    store.patch('controller:w/0', 'Worker', w, { status: { ready: 1, selector: 'app=w' } }, { subresource: 'status' });
    expect(store.getScale('Worker', w)).toMatchObject({ spec: { replicas: 1 }, status: { replicas: 1, selector: 'app=w' } });
  });
});
