import { describe, expect, it } from 'vitest';
import { defineController } from '../../../src/runtime/define-controller.js';
import { InvalidError, StoreError } from '../../../src/store/errors.js';
import type { NewObject } from '../../../src/store/object.js';
import { run, scenario } from '../../helpers/fixtures.js';
import { failure, makeStore } from './helpers.js';

/**
 * A Pod is bound to a Node as on kube-apiserver 1.32 (red team rt46 R-6): `spec.nodeName` is
 * set at creation or through the `pods/binding` subresource, never by an update or patch
 * (ValidatePodUpdate: 422), and a binding answers as BindingREST does (409 when already bound).
 */

const pod = (name: string, spec: Record<string, unknown> = {}): NewObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'a:1' }], ...spec } });
const binding = (name: string, node: string, meta: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace: 'default', ...meta }, target: { kind: 'Node', name: node } });
const ref = (name: string) => ({ namespace: 'default', name });

describe('Pod binding', () => {
  it('refuses an update or patch that sets spec.nodeName (422, ValidatePodUpdate), on a pending Pod too', () => {
    const { store } = makeStore();
    const p = store.create('user', pod('web'));
    for (const write of [() => store.patch('controller:sched/0', 'Pod', ref('web'), { spec: { nodeName: 'node-a' } }), () => store.update('controller:sched/0', { ...p, spec: { ...p.spec, nodeName: 'node-a' } })]) {
      const e = failure(write);
      expect(e).toBeInstanceOf(InvalidError);
      expect(e.code).toBe(422);
      expect((e as InvalidError).causes).toEqual([{ field: 'spec', type: 'FieldValueForbidden', body: expect.stringMatching(/^Forbidden: pod updates may not change fields other than `spec.containers\[\*\].image`/) }]);
    }
    expect(store.get('Pod', ref('web')).spec['nodeName']).toBeUndefined();
  });

  it('binds through a Binding: spec.nodeName, PodScheduled=True and the annotations set, recorded as the verb bind; a second binding is 409', () => {
    const { store, take } = makeStore();
    store.create('user', pod('web'));
    take();
    store.bind('controller:sched/0', binding('web', 'node-a', { annotations: { 'example.com/by': 'sched' } }));
    const bound = store.get('Pod', ref('web'));
    expect(bound.spec['nodeName']).toBe('node-a');
    expect(bound.metadata.annotations).toEqual({ 'example.com/by': 'sched' });
    expect(bound.status['conditions']).toEqual([{ type: 'PodScheduled', status: 'True', lastTransitionTime: expect.any(String) }]);
    expect(take()).toEqual([expect.objectContaining({ actor: 'controller:sched/0', verb: 'bind', kind: 'Pod', key: 'default/web', noop: false, changed: expect.arrayContaining(['spec.nodeName', 'status.conditions']) })]);
    const again = failure(() => store.bind('controller:sched/0', binding('web', 'node-b')));
    expect(again.code).toBe(409);
    expect(again.reason).toBe('Conflict');
    expect(again.message).toBe('Operation cannot be fulfilled on pods/binding "web": pod web is already assigned to node "node-a"');
    expect(take()).toEqual([expect.objectContaining({ verb: 'bind', kind: 'Pod', key: 'default/web', error: 'Conflict' })]);
    expect(store.get('Pod', ref('web')).spec['nodeName']).toBe('node-a');
  });

  it('store.create of a v1 Binding binds its Pod (the bindings resource) and stores no Binding', () => {
    const { store } = makeStore();
    store.create('user', pod('web'));
    const echoed = store.create('controller:sched/0', binding('web', 'node-a'));
    expect(echoed).toMatchObject({ kind: 'Binding', target: { name: 'node-a' } });
    expect(store.get('Pod', ref('web')).spec['nodeName']).toBe('node-a');
    expect(store.knowsKind('Binding')).toBe(false);
  });

  it('answers as BindingREST: 404 without the Pod, 409 for a deleting or gated Pod or a failed precondition, 500 for a target without a name', () => {
    const { store } = makeStore();
    expect(failure(() => store.bind('s', binding('none', 'node-a'))).code).toBe(404);
    const p = store.create('user', pod('web'));
    expect(failure(() => store.bind('s', binding('web', 'node-a', { resourceVersion: '999' }))).message).toMatch(/Precondition failed: ResourceVersion in precondition: 999/);
    expect(failure(() => store.bind('s', binding('web', 'node-a', { uid: 'other' }))).message).toMatch(/Precondition failed: UID in precondition: other/);
    expect(failure(() => store.bind('s', { ...binding('web', ''), target: { kind: 'Node', name: '' } })).message).toBe('target.name: Required value');
    store.bind('s', binding('web', 'node-a', { uid: p.metadata.uid, resourceVersion: p.metadata.resourceVersion }));
    store.create('user', pod('gated', { schedulingGates: [{ name: 'example.com/quota' }] }));
    expect(failure(() => store.bind('s', binding('gated', 'node-a'))).message).toBe('Operation cannot be fulfilled on pods/binding "gated": pod gated has non-empty .spec.schedulingGates');
    store.create('user', { ...pod('going'), metadata: { name: 'going', namespace: 'default', finalizers: ['example.com/hold'] } });
    store.delete('user', 'Pod', ref('going'));
    expect(failure(() => store.bind('s', binding('going', 'node-a'))).message).toBe('Operation cannot be fulfilled on pods/binding "going": pod going is being deleted, cannot be assigned to a host');
  });

  it('lets an update remove scheduling gates, never add one', () => {
    const { store } = makeStore();
    store.create('user', pod('gated', { schedulingGates: [{ name: 'a' }, { name: 'b' }] }));
    const e = failure(() => store.patch('ctl', 'Pod', ref('gated'), { spec: { schedulingGates: [{ name: 'a' }, { name: 'c' }] } })) as InvalidError;
    expect(e.causes).toEqual([{ field: 'spec.schedulingGates[1].name', type: 'FieldValueForbidden', body: "Forbidden: only deletion is allowed, but found new scheduling gate 'c'" }]);
    store.patch('ctl', 'Pod', ref('gated'), { spec: { schedulingGates: [{ name: 'b' }] } });
    store.patch('ctl', 'Pod', ref('gated'), { spec: { schedulingGates: null } });
    expect(store.get('Pod', ref('gated')).spec['schedulingGates']).toBeUndefined();
    store.bind('s', binding('gated', 'node-a'));
    // ValidatePodCreate: made bound, a Pod may not carry gates
    expect((failure(() => store.create('user', pod('both', { nodeName: 'node-a', schedulingGates: [{ name: 'a' }] }))) as InvalidError).causes).toEqual([
      { field: 'spec.nodeName', type: 'FieldValueForbidden', body: 'Forbidden: cannot be set until all schedulingGates have been cleared' },
    ]);
  });

  it("a controller's client binds with create({ kind: 'Binding' }), as controller-runtime does; its update of spec.nodeName is refused", async () => {
    const seen: string[] = [];
    const c = defineController({
      name: 'sched',
      for: 'Pod',
      resyncPeriodMs: 0,
      async reconcile(ctx) {
        const p = await ctx.client.get('Pod', ctx.key, { live: true });
        if (p.spec['nodeName'] !== undefined) return;
        await ctx.client.update({ ...p, spec: { ...p.spec, nodeName: 'node-a' } }).catch((e: StoreError) => seen.push(`update ${e.reason}`));
        await ctx.client.create({ apiVersion: 'v1', kind: 'Binding', metadata: { name: p.metadata.name, namespace: p.metadata.namespace }, target: { kind: 'Node', name: 'node-a' } } as unknown as NewObject);
        await ctx.client.create({ apiVersion: 'v1', kind: 'Binding', metadata: { name: p.metadata.name, namespace: p.metadata.namespace }, target: { kind: 'Node', name: 'node-b' } } as unknown as NewObject).catch((e: StoreError) => seen.push(`again ${e.reason}`));
      },
    });
    const { run: r } = await run(scenario({ controllers: [{ name: 'sched' }], initialObjects: [pod('web')] }), [c]);
    expect(seen).toEqual(['update Invalid', 'again Conflict']);
    expect(r.finalObjects.find((o) => o.kind === 'Pod')?.spec['nodeName']).toBe('node-a');
    expect(r.trace.filter((e) => e.type === 'store:write' && e['verb'] === 'bind').map((e) => `${String(e['actor'])} ${String(e['key'])} ${String(e['error'] ?? 'ok')}`)).toEqual(['controller:sched/0 default/web ok', 'controller:sched/0 default/web Conflict']);
  });
});
