import { describe, expect, it } from 'vitest';
import { APP_CONFIG, configRevisions } from '../../examples/false-positives/config-revisions.js';
import { DEFAULT_HISTORY, recovery, sameEndState, type HistorySelector, type Scenario, type WorkloadAction } from '../../src/index.js';
import { historyExcess, historyOf } from '../../properties/_internals/history.js';
import { expectFailure, judgeScenario } from '../helpers/property-laws.js';

/**
 * History objects (revisions kept for rollback) in the properties that compare end states: which
 * of them exist depends on which declarations the controller observed, so declared history is
 * left out of same-end-state and recovery and held to its limit instead. config-revisions (hash-
 * named ConfigMap revisions, the newest two kept besides the current one) is the controller.
 */
const REVISIONS: HistorySelector = { kind: 'ConfigMap', labels: ['config.example.com/app'], limit: 3 };
const history = [...DEFAULT_HISTORY, REVISIONS];
const side = { controllers: [...configRevisions.controllers] };
const data = (level: string) => ({ data: { LOG_LEVEL: level } });
const update = (at: number, level: string): WorkloadAction => ({ at, type: 'update', kind: APP_CONFIG, key: 'default/web', spec: data(level) });

function scenario(workload: WorkloadAction[], faults: Scenario['faults'] = { events: [], background: [] }): Scenario {
  return {
    seed: 1,
    controllers: [{ name: 'config-revisions' }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: { kind: APP_CONFIG, metadata: { name: 'web', namespace: 'default' }, spec: data('info') } }, ...workload],
    faults,
    options: { faultWindowMs: 8_000, settleMs: 20_000 },
  };
}
const revisionNames = (objects: readonly { kind: string; metadata: { name: string } }[]) => objects.filter((o) => o.kind === 'ConfigMap').map((o) => o.metadata.name).sort();

describe('same-end-state and history', () => {
  // the notification of the update to 'debug' is lost; resync comes only after the update to 'warn',
  // so the controller never publishes a 'debug' revision (a slow controller would not either)
  const skipped = scenario([update(1_000, 'debug'), update(3_000, 'warn')], { events: [{ kind: 'event-loss', nth: 3 }], background: [] });

  it('a declaration the controller never observed leaves no revision: declared history is not compared', async () => {
    const { verdict, run, twin } = await judgeScenario(sameEndState({ history }), skipped, side);
    expect(run.trace.some((e) => e.type === 'fault:inject')).toBe(true);
    expect(revisionNames(run.settledObjects)).toHaveLength(2);
    expect(revisionNames(twin!.settledObjects)).toHaveLength(3);
    expect(verdict).toEqual(expect.objectContaining({ ok: true }));
  });
  it('undeclared, the same history is taken for state (what made config-revisions a false alarm)', async () => {
    const { verdict } = await judgeScenario(sameEndState(), skipped, side);
    expect(expectFailure(verdict).summary).toMatch(/^end state differs from the fault-free run: ConfigMap default\/web-\w+ is missing/);
  });
  it('history beyond its limit fails, fault-free too, naming the owner and the objects', async () => {
    const keepAll = [...configRevisions.buggy!.controllers];
    const { verdict } = await judgeScenario(sameEndState({ history }), scenario([update(1_000, 'debug'), update(3_000, 'warn'), update(5_000, 'error')]), { controllers: keepAll });
    const v = expectFailure(verdict);
    expect(v.summary).toMatch(/^end state keeps too much history: the ConfigMap history of AppConfig default\/web holds 4 objects, more than its limit of 3 \(web-\w+, web-\w+, web-\w+ and web-\w+\)$/);
    expect(v.explanation).toContain('delete the oldest beyond the limit');
    // the correct controller keeps three
    expect((await judgeScenario(sameEndState({ history }), scenario([update(1_000, 'debug'), update(3_000, 'warn'), update(5_000, 'error')]), side)).verdict).toEqual(expect.objectContaining({ ok: true }));
  });
  it('a wrong history option is a usage error that says what is wrong', () => {
    expect(() => sameEndState({ history: [{ kind: 'ConfigMap', limit: 0 }] })).toThrow(/sameEndState: history ConfigMap: limit must be a whole number ≥ 1 \(got 0\)/);
    expect(() => recovery({ history: [{ labels: ['a'] } as unknown as HistorySelector] })).toThrow(/recovery: each history entry needs a kind/);
  });
});

describe('recovery and history', () => {
  // away to 'debug' and back: the 'debug' revision stays as history, as a Deployment keeps the ReplicaSet
  const revert = scenario([update(1_000, 'debug'), update(4_000, 'info')]);
  it('the revision kept for the spec the workload reverted is history, not a leak', async () => {
    const { verdict } = await judgeScenario(recovery({ history }), revert, side);
    expect(verdict).toEqual(expect.objectContaining({ ok: true, stats: expect.objectContaining({ judged: true }) }));
  });
  it('undeclared, it is taken for a leaked child of the intermediate spec', async () => {
    const { verdict } = await judgeScenario(recovery(), revert, side);
    expect(expectFailure(verdict).summary).toMatch(/ConfigMap default\/web-\w+/);
  });
});

describe('history selectors', () => {
  let uids = 0;
  const obj = (kind: string, labels: Record<string, string>, extra: object = {}, owner?: string) =>
    ({ kind, apiVersion: 'v1', metadata: { name: `${kind}-${Object.values(labels).join('-')}`, namespace: 'ns', uid: `u-${uids++}`, labels, annotations: {}, finalizers: [], ownerReferences: owner ? [{ apiVersion: 'v1', kind: 'App', name: owner, uid: `uid-${owner}`, controller: true }] : [], resourceVersion: '1', generation: 1, creationTimestamp: '' }, spec: {}, status: {}, ...extra }) as never;
  it('match by kind, label keys and type; Helm release Secrets and ControllerRevisions by default', () => {
    expect(historyOf(obj('Secret', { name: 'web', owner: 'helm' }, { type: 'helm.sh/release.v1' }), DEFAULT_HISTORY)).toBeDefined();
    expect(historyOf(obj('Secret', { name: 'web' }, { type: 'Opaque' }), DEFAULT_HISTORY)).toBeUndefined();
    expect(historyOf(obj('Secret', {}, { type: 'helm.sh/release.v1' }), DEFAULT_HISTORY)).toBeUndefined();
    expect(historyOf(obj('ControllerRevision', {}), DEFAULT_HISTORY)).toBeDefined();
    expect(historyOf(obj('ConfigMap', { 'config.example.com/app': 'web' }), [REVISIONS])).toBe(REVISIONS);
    expect(historyOf(obj('ConfigMap', { other: 'web' }), [REVISIONS])).toBeUndefined();
  });
  it('count one history per controlling owner, else per value of the label keys', () => {
    const helm: HistorySelector = { kind: 'Secret', type: 'helm.sh/release.v1', labels: ['name'], limit: 1 };
    const release = (name: string, v: string) => obj('Secret', { name, version: v }, { type: 'helm.sh/release.v1' });
    expect(historyExcess([release('web', '1'), release('db', '1')], [helm])).toEqual([]);
    expect(historyExcess([release('web', '1'), release('web', '2')], [helm])).toEqual([{ kind: 'Secret', of: 'ns: name=web', limit: 1, names: ['Secret-web-1', 'Secret-web-2'] }]);
    const owned = (owner: string, v: string) => obj('ConfigMap', { 'config.example.com/app': 'x', v }, {}, owner);
    expect(historyExcess([owned('a', '1'), owned('a', '2'), owned('a', '3'), owned('b', '1')], [REVISIONS])).toEqual([]);
    expect(historyExcess([owned('a', '1'), owned('a', '2'), owned('a', '3'), owned('a', '4')], [REVISIONS])).toEqual([expect.objectContaining({ of: 'App ns/a', limit: 3 })]);
  });
});
