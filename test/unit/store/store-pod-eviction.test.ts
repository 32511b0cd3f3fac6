import { describe, expect, it } from 'vitest';
import { InvalidError, NotFoundError, TooManyRequestsError } from '../../../src/store/errors.js';
import type { JsonObject, NewObject } from '../../../src/store/object.js';
import type { ObjectStore } from '../../../src/store/store.js';
import { failure, makeStore } from './helpers.js';

/**
 * The `pods/eviction` subresource in the store (red team round 9 E-1): an Eviction deletes its Pod
 * unless the PodDisruptionBudget selecting it allows no disruption, as kube-apiserver's
 * EvictionREST (1.32) decides, and a granted eviction takes the disruption from the budget's
 * status before the delete, so a second eviction on the same status is refused.
 */

const ref = (name: string) => ({ namespace: 'default', name });
const eviction = (name: string, deleteOptions?: JsonObject): NewObject => ({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'default' }, ...(deleteOptions ? { deleteOptions } : {}) }) as unknown as NewObject;

/** A Pod of app=web in `phase`, Ready or not. */
function addPod(store: ObjectStore, name: string, phase = 'Running', ready = true, finalizers: string[] = []): void {
  store.create('user', { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app: 'web' }, finalizers }, spec: { containers: [{ name: 'c', image: 'a:1' }] } });
  store.patch('environment:pod-lifecycle', 'Pod', ref(name), { status: { phase, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } }, { subresource: 'status' });
}

/** A budget over app=web with the status the disruption controller would have written. */
function addBudget(store: ObjectStore, name: string, spec: JsonObject, status: JsonObject): void {
  store.create('user', { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name, namespace: 'default' }, spec: { selector: { matchLabels: { app: 'web' } }, ...spec } });
  store.patch('environment:disruption', 'PodDisruptionBudget', ref(name), { status: { observedGeneration: 1, ...status } }, { subresource: 'status' });
}

describe('Pod eviction (the pods/eviction subresource)', () => {
  it('deletes a Pod no budget selects, recorded as the caller\'s delete; no Eviction object is stored', () => {
    const { store, take } = makeStore();
    addPod(store, 'web-0');
    take();
    const out = store.create('controller:drainer/0', eviction('web-0'));
    expect(out.kind).toBe('Eviction');
    expect(store.peek('Pod', 'default/web-0')).toBeUndefined();
    expect(store.peekAll('Eviction')).toEqual([]);
    // kube's addConditionAndDeletePod (1.31): the Pod is marked DisruptionTarget through its status, then deleted
    expect(take()).toEqual([
      expect.objectContaining({ actor: 'environment:eviction', verb: 'updateStatus', kind: 'Pod', key: 'default/web-0', changed: ['status.conditions'] }),
      expect.objectContaining({ actor: 'controller:drainer/0', verb: 'delete', kind: 'Pod', key: 'default/web-0', removed: true }),
    ]);
  });

  it('marks the evicted Pod DisruptionTarget=True (EvictionByEvictionAPI) before deleting it: a watcher sees the condition on its last state', () => {
    const { store } = makeStore();
    addPod(store, 'web-0');
    const events: { type: string; conditions: unknown }[] = [];
    store.watch('Pod', undefined, (ev) => events.push({ type: ev.type, conditions: ev.object.status['conditions'] }));
    store.create('controller:drainer/0', eviction('web-0'));
    const marked = [{ type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting', lastTransitionTime: '2026-01-01T00:00:00.000Z' }];
    expect(events).toEqual([
      { type: 'MODIFIED', conditions: expect.arrayContaining(marked) },
      { type: 'DELETED', conditions: expect.arrayContaining(marked) },
    ]);
  });

  it('takes the one disruption a budget allows (status decremented, the Pod in disruptedPods) and refuses the next eviction on that status with 429', () => {
    const { store, take, clock } = makeStore();
    for (const n of ['web-0', 'web-1', 'web-2']) addPod(store, n);
    addBudget(store, 'web', { minAvailable: 2 }, { currentHealthy: 3, desiredHealthy: 2, expectedPods: 3, disruptionsAllowed: 1 });
    clock.advanceTo(5_000);
    take();
    store.evict('controller:drainer/0', { metadata: ref('web-0') });
    const pdb = store.peek('PodDisruptionBudget', 'default/web')!;
    expect(pdb.status['disruptionsAllowed']).toBe(0);
    expect(pdb.status['disruptedPods']).toEqual({ 'web-0': '2026-01-01T00:00:05.000Z' });
    expect(pdb.status['conditions']).toEqual([{ type: 'DisruptionAllowed', status: 'False', observedGeneration: 1, lastTransitionTime: '2026-01-01T00:00:05.000Z', reason: 'InsufficientPods', message: '' }]);
    expect(store.peek('Pod', 'default/web-0')).toBeUndefined();
    expect(take()).toEqual([
      expect.objectContaining({ actor: 'environment:eviction', verb: 'updateStatus', kind: 'PodDisruptionBudget', key: 'default/web' }),
      expect.objectContaining({ actor: 'environment:eviction', verb: 'updateStatus', kind: 'Pod', key: 'default/web-0' }),
      expect.objectContaining({ actor: 'controller:drainer/0', verb: 'delete', kind: 'Pod', key: 'default/web-0', removed: true }),
    ]);
    // the disruption controller has not recounted: the status still says 3 healthy, but the grant was taken
    const e = failure(() => store.create('controller:drainer/0', eviction('web-1')));
    expect(e).toBeInstanceOf(TooManyRequestsError);
    expect(e.code).toBe(429);
    expect(e.message).toBe("Cannot evict pod as it would violate the pod's disruption budget.");
    expect((e as TooManyRequestsError).causes).toEqual([{ type: 'DisruptionBudget', message: 'The disruption budget web needs 2 healthy pods and has 3 currently' }]);
    expect(e.retryAfterSeconds).toBeUndefined();
    expect(store.peek('Pod', 'default/web-1')).toBeDefined();
    expect(take()).toEqual([expect.objectContaining({ actor: 'controller:drainer/0', verb: 'delete', kind: 'Pod', key: 'default/web-1', error: 'TooManyRequests' })]);
  });

  it('refuses with 429 (Retry-After 10 s) while the budget\'s status is for an older generation', () => {
    const { store } = makeStore();
    addPod(store, 'web-0');
    addBudget(store, 'web', { minAvailable: 0 }, { currentHealthy: 1, desiredHealthy: 0, expectedPods: 1, disruptionsAllowed: 1 });
    store.patch('user', 'PodDisruptionBudget', ref('web'), { spec: { minAvailable: 1 } });
    const e = failure(() => store.evict('user', { metadata: ref('web-0') }));
    expect(e).toBeInstanceOf(TooManyRequestsError);
    expect((e as TooManyRequestsError).causes).toEqual([{ type: 'DisruptionBudget', message: 'The disruption budget web is still being processed by the server.' }]);
    expect(e.retryAfterSeconds).toBe(10);
    expect(store.peek('Pod', 'default/web-0')).toBeDefined();
  });

  it('answers 500 when two budgets select the Pod, and 404 when there is no such Pod', () => {
    const { store } = makeStore();
    addPod(store, 'web-0');
    addBudget(store, 'a', { minAvailable: 0 }, { disruptionsAllowed: 1 });
    addBudget(store, 'b', { maxUnavailable: 1 }, { disruptionsAllowed: 1 });
    const e = failure(() => store.evict('user', { metadata: ref('web-0') }));
    expect([e.code, e.reason, e.message]).toEqual([500, 'InternalError', 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.']);
    expect(store.peek('Pod', 'default/web-0')).toBeDefined();
    const missing = failure(() => store.evict('user', { metadata: ref('nope') }));
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing.message).toBe('Pod "default/nope" not found');
  });

  it('deletes a Pending, a finished and a terminating Pod without asking the budget (no new disruption)', () => {
    const { store } = makeStore();
    addPod(store, 'pending', 'Pending', false);
    addPod(store, 'done', 'Succeeded', false);
    addPod(store, 'held', 'Running', true, ['example.com/hold']);
    store.delete('user', 'Pod', ref('held'));
    addBudget(store, 'web', { minAvailable: 5 }, { currentHealthy: 0, desiredHealthy: 5, disruptionsAllowed: 0 });
    for (const n of ['pending', 'done']) {
      store.evict('user', { metadata: ref(n) });
      expect(store.peek('Pod', `default/${n}`)).toBeUndefined();
    }
    store.evict('user', { metadata: ref('held') });
    expect(store.peek('Pod', 'default/held')!.metadata.deletionTimestamp).toBeDefined();
    expect(store.peek('PodDisruptionBudget', 'default/web')!.status['disruptionsAllowed']).toBe(0);
  });

  it('evicts an unready Running Pod without taking a disruption while the budget is healthy (IfHealthyBudget), refuses it while it is not, and always evicts it with AlwaysAllow', () => {
    const { store } = makeStore();
    for (const n of ['web-0', 'web-1']) addPod(store, n);
    addPod(store, 'sick', 'Running', false);
    addBudget(store, 'web', { minAvailable: 2 }, { currentHealthy: 2, desiredHealthy: 2, expectedPods: 3, disruptionsAllowed: 0 });
    store.evict('user', { metadata: ref('sick') });
    expect(store.peek('Pod', 'default/sick')).toBeUndefined();
    expect(store.peek('PodDisruptionBudget', 'default/web')!.status['disruptedPods']).toBeUndefined();
    // the budget disrupted (1 healthy of 2): an unready Pod is refused too
    addPod(store, 'sick', 'Running', false);
    store.patch('environment:disruption', 'PodDisruptionBudget', ref('web'), { status: { currentHealthy: 1 } }, { subresource: 'status' });
    expect(failure(() => store.evict('user', { metadata: ref('sick') }))).toBeInstanceOf(TooManyRequestsError);
    store.patch('user', 'PodDisruptionBudget', ref('web'), { spec: { unhealthyPodEvictionPolicy: 'AlwaysAllow' } });
    store.patch('environment:disruption', 'PodDisruptionBudget', ref('web'), { status: { observedGeneration: 2 } }, { subresource: 'status' });
    store.evict('user', { metadata: ref('sick') });
    expect(store.peek('Pod', 'default/sick')).toBeUndefined();
    // a Ready Pod is still protected
    expect(failure(() => store.evict('user', { metadata: ref('web-0') }))).toBeInstanceOf(TooManyRequestsError);
  });

  it('passes deleteOptions to the Pod\'s delete (a uid precondition that fails is 409); a dryRun evicts nothing, and only All is a dryRun', () => {
    const { store } = makeStore();
    addPod(store, 'web-0');
    expect(failure(() => store.create('user', eviction('web-0', { preconditions: { uid: 'other' } }))).reason).toBe('Conflict');
    store.create('user', eviction('web-0', { dryRun: ['All'] }));
    expect(failure(() => store.create('user', eviction('web-0', { dryRun: ['all'] })))).toBeInstanceOf(InvalidError);
    // a dry run is refused as the eviction would be
    expect(failure(() => store.create('user', eviction('web-0', { dryRun: ['All'], preconditions: { uid: 'other' } }))).reason).toBe('Conflict');
    expect(store.peek('Pod', 'default/web-0')).toBeDefined();
    store.create('user', eviction('web-0', { preconditions: { uid: store.peek('Pod', 'default/web-0')!.metadata.uid } }));
    expect(store.peek('Pod', 'default/web-0')).toBeUndefined();
  });
});
