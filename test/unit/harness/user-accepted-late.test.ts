import { describe, expect, it } from 'vitest';
import { userAcceptedLate } from '../../../src/harness/twin.js';
import type { RunRecord } from '../../../src/harness/property.js';
import type { Scenario, WorkloadAction } from '../../../src/harness/scenario.js';

/**
 * userAcceptedLate: the fault-free scenario of the user's intent as the faulty run's API server
 * accepted it (src/harness/twin.ts). Found by the corpus (reference-grant, fpJ): a 500 refused the
 * user's re-create of a namespace, its retry was accepted at the very instant of the user's create
 * of a Service in it, just after that create had been refused NotFound (never retried). The
 * fault-free run of the moved actions put the retry first at that instant and made the Service,
 * so an HTTPRoute naming it ended otherwise there and same-end-state raised a false alarm.
 */
const trace = (entries: Record<string, unknown>[]) => ({ trace: entries as unknown as RunRecord['trace'] });
const nsCreate = (at: number): WorkloadAction => ({ at, type: 'create', object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'payments' } } });
const svcCreate = (at: number, extra: Partial<{ retry: false }> = {}): WorkloadAction => ({ at, type: 'create', object: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'gateway', namespace: 'payments' }, spec: {} }, ...extra });
const grantCreate = (at: number): WorkloadAction => ({ at, type: 'create', object: { kind: 'ReferenceGrant', metadata: { name: 'allow-apps', namespace: 'payments' }, spec: {} } });
const scenario = (workload: WorkloadAction[]): Scenario => ({ seed: 1, controllers: [], initialObjects: [], workload, faults: { events: [], background: [] } });
const ids = (s: Scenario | undefined) => s?.workload.map((a) => `${a.at} ${a.type === 'create' ? a.object.kind : 'key' in a ? a.key : ''}`);
const userFault = (t: number, kind: string, key: string, attempt = 1, extra: Record<string, unknown> = {}) => ({ t, type: 'fault:inject', kind: 'api-error', target: 'user', actor: 'user', verb: 'create', objectKind: kind, key, action: 'create', attempt, status: 500, ...extra });
const act = (t: number, kind: string, key: string, extra: Record<string, unknown> = {}) => ({ t, type: 'user:action', action: 'create', kind, key, ...extra });

describe('userAcceptedLate: at one instant, the order the run answered', () => {
  const s = scenario([{ at: 13_000, type: 'delete', kind: 'Namespace', key: 'payments' }, nsCreate(19_000), svcCreate(20_000), grantCreate(21_000)]);
  const refused = trace([
    act(13_000, 'Namespace', 'payments', { action: 'delete' }),
    userFault(19_000, 'Namespace', 'payments'),
    act(19_000, 'Namespace', 'payments', { attempt: 1, error: 'InternalError' }),
    act(20_000, 'Service', 'payments/gateway', { error: 'NotFound' }),
    act(20_000, 'Namespace', 'payments', { attempt: 2 }),
    act(21_000, 'ReferenceGrant', 'payments/allow-apps'),
  ]);

  it('a retry accepted at the instant of another action goes after it, as in the run (so a create in its namespace is refused NotFound there too)', () => {
    expect(ids(userAcceptedLate(refused, s))).toEqual(['13000 payments', '20000 Service', '20000 Namespace', '21000 ReferenceGrant']);
  });

  it('retries accepted at one instant keep the order the run answered them, each followed by what waited behind it on its object', () => {
    const label = (at: number): WorkloadAction => ({ at, type: 'patch', kind: 'Namespace', key: 'payments', patch: { metadata: { labels: { a: 'b' } } } });
    const w = scenario([svcCreate(19_000), nsCreate(19_000), label(20_000), grantCreate(20_000)]);
    const t = trace([
      userFault(19_000, 'Service', 'payments/gateway'),
      act(19_000, 'Service', 'payments/gateway', { attempt: 1, error: 'InternalError' }),
      userFault(19_000, 'Namespace', 'payments'),
      act(19_000, 'Namespace', 'payments', { attempt: 1, error: 'InternalError' }),
      act(20_000, 'ReferenceGrant', 'payments/allow-apps'),
      // the namespace's retry was answered first, then the patch that waited behind it, then the Service's retry
      act(20_000, 'Namespace', 'payments', { attempt: 2 }),
      act(20_000, 'Namespace', 'payments', { action: 'patch' }),
      act(20_000, 'Service', 'payments/gateway', { attempt: 2 }),
    ]);
    expect(ids(userAcceptedLate(t, w))).toEqual(['20000 ReferenceGrant', '20000 Namespace', '20000 payments', '20000 Service']);
  });

  it('no action refused by a fault: no variation (a NotFound the API server gave for itself moves nothing)', () => {
    const t = trace([act(20_000, 'Service', 'payments/gateway', { error: 'NotFound' })]);
    expect(userAcceptedLate(t, s)).toBeUndefined();
  });
});

describe('userAcceptedLate: an action sent once into a fault never took effect', () => {
  const s = scenario([nsCreate(0), svcCreate(2000, { retry: false }), grantCreate(3000)]);
  it('left out when the fault refused it unapplied', () => {
    const t = trace([act(0, 'Namespace', 'payments'), userFault(2000, 'Service', 'payments/gateway'), act(2000, 'Service', 'payments/gateway', { error: 'InternalError' }), act(3000, 'ReferenceGrant', 'payments/allow-apps')]);
    expect(ids(userAcceptedLate(t, s))).toEqual(['0 Namespace', '3000 ReferenceGrant']);
  });
  it('kept when the fault applied it and lost the answer, or when the API server refused it for itself', () => {
    const applied = trace([userFault(2000, 'Service', 'payments/gateway', 1, { applied: true }), act(2000, 'Service', 'payments/gateway', { error: 'InternalError' })]);
    expect(userAcceptedLate(applied, s)).toBeUndefined();
    const own = trace([act(2000, 'Service', 'payments/gateway', { error: 'NotFound' })]);
    expect(userAcceptedLate(own, s)).toBeUndefined();
  });
});
