import { describe, expect, it } from 'vitest';
import { isStoreError } from '../../../src/store/errors.js';
import { makeStore } from './helpers.js';

/**
 * NamespaceLifecycle admission and the namespace controller (issue 11: the store no laxer than
 * kube-apiserver): a namespace never created as an object is taken to exist; content cannot be
 * created in a namespace being deleted (403) or deleted (404); deleting a Namespace deletes
 * what is in it.
 */
const cm = (namespace: string, name = 'c') => ({ kind: 'ConfigMap', metadata: { namespace, name }, data: { a: '1' } });

describe('ObjectStore namespaces', () => {
  it('a namespace that was never an object exists implicitly', () => {
    const { store } = makeStore();
    expect(() => store.create('user', cm('default'))).not.toThrow();
  });

  it('deleting a Namespace deletes its objects (finalizers honoured) and 404s new content until it is recreated', () => {
    const { store, writes } = makeStore();
    store.create('user', { kind: 'Namespace', metadata: { name: 'team' }, spec: {} });
    store.create('user', cm('team', 'a'));
    store.create('user', { ...cm('team', 'b'), metadata: { namespace: 'team', name: 'b', finalizers: ['x/y'] } });
    store.create('user', cm('other', 'a'));
    store.delete('user', 'Namespace', { name: 'team' });
    expect(store.peek('ConfigMap', 'team/a')).toBeUndefined();
    expect(store.peek('ConfigMap', 'team/b')?.metadata.deletionTimestamp).toBeDefined();
    expect(store.peek('ConfigMap', 'other/a')).toBeDefined();
    expect(writes.filter((w) => w.actor === 'environment:namespace-controller').map((w) => w.key)).toEqual(['team/a', 'team/b']);
    let err: unknown;
    try {
      store.create('ctl', cm('team', 'late'));
    } catch (e) {
      err = e;
    }
    expect(isStoreError(err, 'NotFound')).toBe(true);
    expect((err as Error).message).toBe('namespaces "team" not found');
    store.create('user', { kind: 'Namespace', metadata: { name: 'team' }, spec: {} });
    expect(() => store.create('ctl', cm('team', 'late'))).not.toThrow();
  });

  it('a Namespace held by a finalizer is Terminating: new content gets 403 Forbidden', () => {
    const { store } = makeStore();
    store.create('user', { kind: 'Namespace', metadata: { name: 'team', finalizers: ['kubernetes'] }, spec: {} });
    store.create('user', cm('team', 'a'));
    store.delete('user', 'Namespace', { name: 'team' });
    expect(store.peek('ConfigMap', 'team/a')).toBeUndefined();
    let err: unknown;
    try {
      store.create('ctl', cm('team', 'b'));
    } catch (e) {
      err = e;
    }
    expect(isStoreError(err, 'Forbidden')).toBe(true);
    expect((err as { code: number }).code).toBe(403);
    expect((err as Error).message).toMatch(/because it is being terminated/);
  });
});
