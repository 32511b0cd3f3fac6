import type { RunRecord } from '../../../src/harness/property.js';
import type { Scenario } from '../../../src/harness/scenario.js';
import type { TraceEntry } from '../../../src/sim/trace.js';
import type { WriteRecord } from '../../../src/store/store.js';

export function bareScenario(partial: Partial<Scenario> = {}): Scenario {
  return { seed: 1, controllers: [{ name: 'c' }], initialObjects: [], workload: [], faults: { events: [], background: [] }, ...partial };
}

/** A synthetic run record: only what the unit under test reads. */
export function fakeRun(partial: Partial<RunRecord> & { trace?: TraceEntry[]; writes?: WriteRecord[] } = {}): RunRecord {
  return {
    scenario: bareScenario(),
    controllers: ['c'],
    primaryKinds: ['ReplicaSet'],
    trace: [],
    writes: [],
    requests: [],
    settledObjects: [],
    finalObjects: [],
    probes: {},
    timing: { faultWindowEnd: 10_000, lastActionAt: 0, settleStart: 10_000, tailStart: 20_000, end: 30_000 },
    blocked: [],
    downstream: null,
    hash: '00000000',
    ...partial,
  };
}

export function write(t: number, actor: string, extra: Partial<WriteRecord> = {}): WriteRecord {
  return { t, actor, verb: 'updateStatus', kind: 'ReplicaSet', key: 'default/rs-0', changed: ['status.replicas'], noop: false, ...extra };
}
