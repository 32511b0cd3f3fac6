import { describe, expect, it } from 'vitest';
import { invalid } from '../../helpers/store-errors.js';
import type { NewObject } from '../../../src/store/object.js';
import { apiFixture } from '../../conformance/kube-helpers.js';
import { makeStore } from './helpers.js';

/**
 * An Event is validated as kube-apiserver's legacyValidateEvent does on every Event write (red
 * team rt46 R-4): one without eventTime lives in its involvedObject's namespace (a cluster-scoped
 * object's in `default`), one with eventTime names its reporter, instance, action and reason.
 */

const event = (name: string, namespace: string, involved: Record<string, unknown>, extra: Record<string, unknown> = {}): NewObject => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name, namespace },
  involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', ...involved },
  reason: 'Synced',
  message: 'ok',
  type: 'Normal',
  ...extra,
});
const reported = { eventTime: '2026-01-01T00:00:00.000000Z', reportingComponent: 'example.com/recorder', reportingInstance: 'recorder-0', action: 'Sync' };

describe('Event validation (legacyValidateEvent)', () => {
  it("refuses an Event whose namespace is not its involvedObject's (422, involvedObject.namespace), on create and on update", () => {
    const { store } = makeStore();
    const e = invalid(() => store.create('controller:ops/0', event('a', 'ops', { namespace: 'team' })));
    expect(e.causes).toEqual([{ field: 'involvedObject.namespace', type: 'FieldValueInvalid', body: 'Invalid value: "team": does not match event.namespace' }]);
    expect(e.message).toBe('Event "ops/a": involvedObject.namespace: Invalid value: "team": does not match event.namespace');
    store.create('controller:ops/0', event('b', 'team', { namespace: 'team' }));
    invalid(() => store.patch('controller:ops/0', 'Event', { namespace: 'team', name: 'b' }, { involvedObject: { namespace: 'ops' } }));
  });

  it("keeps a cluster-scoped object's Events in default (or no namespace); with eventTime also kube-system", () => {
    const { store } = makeStore();
    const node = { apiVersion: 'v1', kind: 'Node', name: 'node-a' };
    store.create('controller:ops/0', event('a', 'default', node));
    expect(invalid(() => store.create('controller:ops/0', event('b', 'team', node))).causes).toEqual([{ field: 'involvedObject.namespace', type: 'FieldValueInvalid', body: 'Invalid value: "": does not match event.namespace' }]);
    store.create('controller:ops/0', event('c', 'kube-system', node, reported));
    invalid(() => store.create('controller:ops/0', event('d', 'kube-system', node)));
    invalid(() => store.create('controller:ops/0', event('e', 'team', node, reported)));
  });

  it('an Event with eventTime names its reporting component, instance, action and reason', () => {
    const { store } = makeStore();
    // a namespaced involvedObject elsewhere is no error for an Event with eventTime (kube-apiserver checks only the cluster-scoped case)
    store.create('controller:ops/0', event('a', 'ops', { namespace: 'team' }, reported));
    const e = invalid(() => store.create('controller:ops/0', event('b', 'ops', { namespace: 'ops' }, { eventTime: reported.eventTime, reason: '' })));
    expect(e.causes.map((c) => `${c.field}: ${c.body}`)).toEqual([
      'reportingComponent: Required value',
      'reportingComponent: Invalid value: "": name part must be non-empty',
      expect.stringMatching(/^reportingComponent: Invalid value: "": name part must consist of alphanumeric characters/),
      'reportingInstance: Required value',
      'action: Required value',
      'reason: Required value',
    ]);
  });

  it('over HTTP: 422 with the Status kube-apiserver sends, for core/v1 and events.k8s.io/v1 alike', async () => {
    const f = apiFixture();
    const r = await f.req('POST', '/api/v1/namespaces/ops/events', { ...event('a', 'ops', { namespace: 'team' }), metadata: { name: 'a' } });
    expect(r.status).toBe(422);
    expect(r.json).toMatchObject({ reason: 'Invalid', message: 'Event "a" is invalid: involvedObject.namespace: Invalid value: "team": does not match event.namespace', details: { name: 'a', kind: 'Event', causes: [{ reason: 'FieldValueInvalid', field: 'involvedObject.namespace', message: 'Invalid value: "team": does not match event.namespace' }] } });
    const v1 = { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'b' }, eventTime: reported.eventTime, reportingController: 'example.com/recorder', reportingInstance: 'recorder-0', action: 'Sync', reason: 'Synced', type: 'Normal', regarding: { apiVersion: 'v1', kind: 'Node', name: 'node-a' } };
    expect((await f.req('POST', '/apis/events.k8s.io/v1/namespaces/team/events', v1)).status).toBe(422);
    expect((await f.req('POST', '/apis/events.k8s.io/v1/namespaces/default/events', v1)).status).toBe(201);
    const { reportingController: _r, ...unreported } = v1;
    expect((await f.req('POST', '/apis/events.k8s.io/v1/namespaces/default/events', { ...unreported, metadata: { name: 'c' } })).json.details.causes[0]).toEqual({ reason: 'FieldValueRequired', message: 'Required value', field: 'reportingController' });
  });
});
