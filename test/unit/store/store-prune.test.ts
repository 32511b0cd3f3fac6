import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/store/object.js';
import { InvalidError } from '../../../src/store/errors.js';
import { failure, makeStore } from './helpers.js';
import { gadgetCrd } from '../../helpers/gadget-crd.js';

/**
 * Structural pruning: kube-apiserver drops the fields of a custom resource its CRD's schema does
 * not declare, on every write. Without it a controller writing a status field its CRD forgot
 * passed here, and on a cluster the field is gone on the next read (a controller that writes it
 * back on every reconcile loops).
 */
const schema: JsonObject = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        size: { type: 'integer' },
        config: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { mode: { type: 'string' } } },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        routes: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' } } } },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', properties: { image: { type: 'string' } } } } },
        port: { 'x-kubernetes-int-or-string': true },
      },
    },
    status: { type: 'object', properties: { ready: { type: 'integer' } } },
  },
};

function withCrd(openAPIV3Schema: JsonObject = schema) {
  const f = makeStore();
  f.store.create('user', gadgetCrd(openAPIV3Schema));
  return f;
}

const ref = { namespace: 'default', name: 'g' };

describe('custom resources are pruned by their CRD schema', () => {
  it('drops undeclared fields at every level, keeps preserved ones, map values, list items and embedded resources', () => {
    const { store } = withCrd();
    const created = store.create('user', {
      apiVersion: 'example.com/v1',
      kind: 'Gadget',
      metadata: { name: 'g', namespace: 'default' },
      spec: {
        size: 1,
        extra: 'x',
        config: { mode: 'fast', anything: { deep: 1 } },
        labels: { a: 'b' },
        routes: [{ path: '/', weight: 3 }],
        template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 't' }, spec: { image: 'i', typo: 1 } },
        port: 'http',
      },
      ...({ extraTop: 1 } as object),
    });
    expect(created.spec).toEqual({ size: 1, config: { mode: 'fast', anything: { deep: 1 } }, labels: { a: 'b' }, routes: [{ path: '/' }], template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 't' }, spec: { image: 'i' } }, port: 'http' });
    expect(created).not.toHaveProperty('extraTop');
    expect(store.peek('Gadget', 'default/g')!.spec).toEqual(created.spec);
  });

  it('a status field the CRD forgot is gone after the write; writing only such fields changes nothing (no new resourceVersion)', () => {
    const { store, take } = withCrd();
    store.create('user', { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g', namespace: 'default' }, spec: { size: 1 } });
    take();
    const cur = store.get('Gadget', ref);
    const written = store.updateStatus('controller:gadget/0', { ...cur, status: { ready: 1, observedGen: 1 } });
    expect(written.status).toEqual({ ready: 1 });
    const again = store.updateStatus('controller:gadget/0', { ...written, status: { ready: 1, observedGen: 2 } });
    expect(again.metadata.resourceVersion).toBe(written.metadata.resourceVersion);
    expect(take().map((w) => [w.verb, w.noop])).toEqual([
      ['updateStatus', false],
      ['updateStatus', true],
    ]);
    // a merge patch of an undeclared spec field is no change either
    store.patch('controller:gadget/0', 'Gadget', ref, { spec: { typo: 2 } });
    expect(store.peek('Gadget', 'default/g')!.spec).toEqual({ size: 1 });
  });

  it('an object node with no properties keeps nothing; a kind without a CRD, or a root that preserves unknown fields, is not pruned', () => {
    const bare = withCrd({ type: 'object', properties: { spec: { type: 'object' } } });
    expect(bare.store.create('user', { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g', namespace: 'default' }, spec: { a: 1 } }).spec).toEqual({});
    const open = withCrd({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    expect(open.store.create('user', { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g', namespace: 'default' }, spec: { a: 1 } }).spec).toEqual({ a: 1 });
    const none = makeStore();
    expect(none.store.create('user', { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g', namespace: 'default' }, spec: { a: 1 } }).spec).toEqual({ a: 1 });
  });

  it("applies the schema's defaults after pruning, at every level present (a kubebuilder default marker), and never over a value", () => {
    const { store } = withCrd({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            interval: { type: 'string', default: '5m' },
            replicas: { type: 'integer', default: 1 },
            suspend: { type: 'boolean', default: false, nullable: true },
            routes: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, weight: { type: 'integer', default: 100 } } } },
            tls: { type: 'object', properties: { mode: { type: 'string', default: 'strict' } } },
          },
        },
        status: { type: 'object', properties: { phase: { type: 'string', default: 'Pending' } } },
      },
    });
    const created = store.create('user', { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g', namespace: 'default' }, spec: { replicas: 3, suspend: null, routes: [{ path: '/' }, { path: '/b', weight: 5 }], tls: {} } });
    expect(created.spec).toEqual({ interval: '5m', replicas: 3, suspend: null, routes: [{ path: '/', weight: 100 }, { path: '/b', weight: 5 }], tls: { mode: 'strict' } });
    expect(created.status).toEqual({ phase: 'Pending' });
    // an update that drops a defaulted field gets the default back: no change, no new version
    const cur = store.get('Gadget', ref);
    const { interval: _drop, ...rest } = cur.spec as JsonObject;
    const updated = store.update('user', { ...cur, spec: rest });
    expect(updated.spec['interval']).toBe('5m');
    expect(updated.metadata.resourceVersion).toBe(cur.metadata.resourceVersion);
  });
});

describe('custom resources are validated against their CRD schema', () => {
  const validated: JsonObject = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        required: ['size'],
        properties: {
          size: { type: 'integer', minimum: 1, maximum: 10 },
          name: { type: 'string', maxLength: 5, pattern: '^[a-z]+$' },
          port: { 'x-kubernetes-int-or-string': true },
          tags: { type: 'array', maxItems: 2, items: { type: 'string' } },
          owner: { type: 'string', nullable: true },
        },
      },
      status: { type: 'object', properties: { phase: { type: 'string', enum: ['Pending', 'Running'] } } },
    },
  };
  const gadget = (spec: JsonObject) => ({ apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g', namespace: 'default' }, spec });

  it('refuses what the schema forbids with the field paths of a 422 (type, required, bounds, length, pattern, int-or-string, items, enum)', () => {
    const { store } = withCrd(validated);
    const err = failure(() => store.create('user', gadget({ name: 'TooLongName', port: true, tags: ['a', 'b', 'c'], owner: null })));
    expect(err).toBeInstanceOf(InvalidError);
    expect((err as InvalidError).causes.map((c) => c.field)).toEqual(['spec.size', 'spec.name', 'spec.name', 'spec.port', 'spec.tags']);
    expect(err.message).toContain('spec.size: Required value');
    expect(err.message).toContain("spec.name in body should match '^[a-z]+$'");
    expect(failure(() => store.create('user', gadget({ size: 0 }))).message).toContain('spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1');
    expect(failure(() => store.create('user', gadget({ size: 'two' }))).message).toContain('spec.size: Invalid value: "string": spec.size in body must be of type integer: "two"');
    store.create('user', gadget({ size: 2, port: 'http', owner: null }));
    const cur = store.get('Gadget', ref);
    expect(failure(() => store.updateStatus('controller:gadget/0', { ...cur, status: { phase: 'running' } })).message).toContain('status.phase: Unsupported value: "running": supported values: "Pending", "Running"');
    expect(store.updateStatus('controller:gadget/0', { ...cur, status: { phase: 'Running' } }).status).toEqual({ phase: 'Running' });
  });

  it('does not judge again what an update left as it was (validation ratcheting)', () => {
    const { store } = makeStore();
    // the object is there before the CRD tightens its rule (created while the CRD allowed 20)
    store.create('user', { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gadgets.example.com' }, spec: { group: 'example.com', scope: 'Namespaced', names: { kind: 'Gadget', plural: 'gadgets' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', maximum: 20 }, name: { type: 'string' } } } } } } }] } });
    store.create('user', gadget({ size: 15, name: 'a' }));
    store.patch('user', 'CustomResourceDefinition', { name: 'gadgets.example.com' }, { spec: { versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', maximum: 10 }, name: { type: 'string' } } } } } } }] } });
    expect(store.patch('user', 'Gadget', ref, { spec: { name: 'b' } }).spec).toEqual({ size: 15, name: 'b' });
    expect(failure(() => store.patch('user', 'Gadget', ref, { spec: { size: 16 } })).message).toContain('should be less than or equal to 10');
  });
});

