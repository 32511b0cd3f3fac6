import { describe, expect, it } from 'vitest';
import { invalid } from '../../helpers/store-errors.js';
import type { NewObject } from '../../../src/store/object.js';
import { apiFixture } from '../../conformance/kube-helpers.js';
import { makeStore } from './helpers.js';

/*
 * R-H (red team round 8): an Event created through events.k8s.io/v1 is validated as kube's
 * ValidateEventCreate validates it (pkg/apis/core/validation/events.go): legacyValidateEvent, and
 * then eventTime required, type Normal or Warning, the deprecated fields unset. A recorder that
 * leaves eventTime, reportingController, reportingInstance or action out records nothing on a
 * cluster. core/v1 creates keep the legacy rules only.
 */

const eventTime = '2026-01-01T00:00:00.000000Z';
const v1Event = (name: string, extra: Record<string, unknown> = {}): NewObject =>
  ({ apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name, namespace: 'default' }, regarding: { apiVersion: 'v1', kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'Started', note: 'n', type: 'Normal', ...extra }) as NewObject;
const complete = { eventTime, reportingController: 'example.com/recorder', reportingInstance: 'recorder-0', action: 'Start' };
const causes = (fn: () => unknown): string[] => invalid(fn).causes.map((c) => `${c.field}: ${c.body}`);

describe('R-H: events.k8s.io/v1 Events are validated as ValidateEventCreate does', () => {
  it('without eventTime (and so without reporter, instance, action): eventTime Required', () => {
    const { store } = makeStore();
    expect(causes(() => store.create('controller:x/0', v1Event('e1')))).toEqual(['eventTime: Required value']);
  });

  it('with eventTime but no reportingController, reportingInstance or action: each Required', () => {
    const { store } = makeStore();
    const got = causes(() => store.create('controller:x/0', v1Event('e1', { eventTime })));
    expect(got).toContain('reportingController: Required value');
    expect(got).toContain('reportingInstance: Required value');
    expect(got).toContain('action: Required value');
  });

  it('a note over 1024 characters, a type other than Normal/Warning, a deprecated field set, a series of one: each refused', () => {
    const { store } = makeStore();
    expect(causes(() => store.create('controller:x/0', v1Event('e1', { ...complete, note: 'x'.repeat(1025) })))).toEqual(['note: Invalid value: "": can have at most 1024 characters']);
    expect(causes(() => store.create('controller:x/0', v1Event('e2', { ...complete, type: 'Info' })))).toEqual(['type: Invalid value: "": has invalid value: Info']);
    expect(causes(() => store.create('controller:x/0', v1Event('e3', { ...complete, deprecatedCount: 2 })))).toEqual(['count: Invalid value: "": needs to be unset']);
    expect(causes(() => store.create('controller:x/0', v1Event('e4', { ...complete, series: { count: 1 } })))).toEqual(['series.count: Invalid value: "": should be at least 2', 'series.lastObservedTime: Required value']);
    store.create('controller:x/0', v1Event('e5', { ...complete, series: { count: 2, lastObservedTime: eventTime } }));
  });

  it('a complete one is accepted, in process and over HTTP; a core/v1 Event without eventTime still is (legacy rules)', async () => {
    const { store } = makeStore();
    store.create('controller:x/0', v1Event('ok', complete));
    store.create('controller:x/0', { apiVersion: 'v1', kind: 'Event', metadata: { name: 'legacy', namespace: 'default' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'R', message: 'm', type: 'Normal' } as NewObject);
    const f = apiFixture();
    const path = '/apis/events.k8s.io/v1/namespaces/default/events';
    expect((await f.req('POST', path, { ...v1Event('ok', complete), metadata: { name: 'ok' } })).status).toBe(201);
    const bad = await f.req('POST', path, { ...v1Event('bad'), metadata: { name: 'bad' } });
    expect(bad.status).toBe(422);
    expect((bad.json as { details: { causes: unknown[] } }).details.causes).toEqual([{ reason: 'FieldValueRequired', message: 'Required value', field: 'eventTime' }]);
  });
});
