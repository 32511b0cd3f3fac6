import { describe, expect, it } from 'vitest';
import { InvalidError } from '../../../src/store/errors.js';
import type { NewObject } from '../../../src/store/object.js';
import { apiFixture } from '../../conformance/kube-helpers.js';
import { makeStore, thrown } from './helpers.js';

/*
 * R-G (red team round 8): CRD `selectableFields` (CustomResourceFieldSelectors, GA in 1.32, the
 * version the store serves). A field selector on a field the CRD declares selectable is served;
 * one on any other field stays a 400 "field label not supported".
 */

const crd: NewObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }, selectableFields: [{ jsonPath: '.spec.color' }, { jsonPath: '.spec.size' }, { jsonPath: '.spec.ready' }], subresources: { status: {} } }],
  },
};
const widget = (name: string, spec: NewObject['spec']): NewObject => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace: 'default' }, spec });
const names = (items: { metadata: { name: string } }[]): string[] => items.map((o) => o.metadata.name);

describe('R-G: a field selector on a selectable field of a custom kind', () => {
  it('is served in process: strings as they are, integers and booleans as Go formats them, an absent field as ""', () => {
    const { store } = makeStore();
    store.create('user', crd);
    store.create('user', widget('a', { color: 'blue', size: 3, ready: true }));
    store.create('user', widget('b', { color: 'red', size: 10, ready: false }));
    store.create('user', widget('c', {}));
    expect(names(store.list('Widget', { namespace: 'default', fieldSelector: 'spec.color=blue' }).items)).toEqual(['a']);
    expect(names(store.list('Widget', { fieldSelector: 'spec.size=10,spec.ready=false' }).items)).toEqual(['b']);
    expect(names(store.list('Widget', { fieldSelector: 'spec.color!=blue' }).items)).toEqual(['b', 'c']);
    expect(names(store.list('Widget', { fieldSelector: 'spec.color=' }).items)).toEqual(['c']);
  });

  it('a field the CRD does not declare is still refused (field label not supported)', () => {
    const { store } = makeStore();
    store.create('user', crd);
    expect(thrown(() => store.list('Widget', { fieldSelector: 'spec.owner=x' }))).toBeInstanceOf(InvalidError);
  });

  it('is served over the REST API; another field is a 400', async () => {
    const f = apiFixture();
    f.store.create('user', crd);
    f.store.create('user', widget('a', { color: 'blue' }));
    f.store.create('user', widget('b', { color: 'red' }));
    const r = await f.req('GET', '/apis/example.com/v1/namespaces/default/widgets?fieldSelector=spec.color%3Dred');
    expect(r.status).toBe(200);
    expect(names((r.json as { items: { metadata: { name: string } }[] }).items)).toEqual(['b']);
    const bad = await f.req('GET', '/apis/example.com/v1/namespaces/default/widgets?fieldSelector=spec.shape%3Dround');
    expect(bad.status).toBe(400);
  });
});
