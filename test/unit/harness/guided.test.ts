import { describe, expect, it } from 'vitest';
import { abstractState, CoverageMap, runCoverage } from '../../../src/harness/guided/behaviour-coverage.js';
import fc from 'fast-check';
import { applyMutations, numericFields, placeAfter, type Mutation } from '../../../src/harness/guided/mutants.js';
import { allFaults } from '../../../faults/index.js';
import { counterOf, nthAtOrAfter } from '../../../src/harness/guided/occurrences.js';
import type { Scenario } from '../../../src/harness/scenario.js';
import type { StoredObject } from '../../../src/store/object.js';
import type { TraceEntry } from '../../../src/sim/trace.js';
import { fakeRun } from './helpers.js';

const obj = (status: Record<string, unknown>, meta: Partial<StoredObject['metadata']> = {}): StoredObject =>
  ({ kind: 'Site', metadata: { name: 's', namespace: 'default', uid: 'u', resourceVersion: '1', generation: 1, creationTimestamp: 't', finalizers: [], ownerReferences: [], labels: {}, annotations: {}, ...meta }, spec: {}, status }) as unknown as StoredObject;

describe('behaviour coverage', () => {
  it('abstracts an object to its phase-like status values, set fields and lifecycle flags, never its ids', () => {
    expect(abstractState(obj({ phase: 'Ready', observedGeneration: 3, id: 'bkt-123' }))).toBe('Site phase=Ready set[id,observedGeneration,phase]');
    expect(abstractState(obj({ ready: true, conditions: [{ type: 'Available', status: 'False' }] }, { deletionTimestamp: 'x', finalizers: ['f'], ownerReferences: [{ kind: 'A', name: 'a', uid: 'v', controller: true }] }))).toBe(
      'Site cond:Available=False ready=true set[conditions,ready] deleting finalizers owned',
    );
    // ids and names vary between runs: the same behaviour is the same fact
    expect(abstractState(obj({ id: 'bkt-1' }))).toBe(abstractState(obj({ id: 'bkt-2' })));
  });

  it('adds reconcile outcomes and fault sites (kind, controller, call, the call before it) from the trace', () => {
    const trace: TraceEntry[] = [
      { t: 1, type: 'reconcile:start', controller: 'web', replica: 0, key: 'default/a' },
      { t: 1, type: 'store:read', actor: 'controller:web/0', verb: 'get', kind: 'Site', key: 'default/a', cached: true },
      { t: 1, type: 'fault:inject', kind: 'crash-restart', controller: 'web', verb: 'patchStatus' },
      { t: 1, type: 'reconcile:end', controller: 'web', replica: 0, key: 'default/a', result: 'error', error: 'HttpError: POST https://x: HTTP 503' },
      { t: 5, type: 'fault:inject', kind: 'recreation', objectKind: 'Site', key: 'default/a' },
    ];
    const facts = runCoverage(fakeRun({ trace }), new Set(['state Site set[]']));
    expect([...facts].sort()).toEqual(['fault crash-restart web patchStatus  after get Site', 'fault recreation world  Site between reconciles', 'outcome web error http-503', 'state Site set[]'].sort());
    const map = new CoverageMap();
    expect(map.add(facts)).toBe(4);
    expect(map.add(facts)).toBe(0);
    expect(map.count('outcome web error http-503')).toBe(2);
  });
});

describe('guided mutations', () => {
  const s: Scenario = {
    seed: 1,
    controllers: [{ name: 'web' }],
    initialObjects: [],
    workload: [
      { at: 0, type: 'create', object: { kind: 'Site', metadata: { name: 'a', namespace: 'default' }, spec: {} } },
      { at: 1000, type: 'reapply', kind: 'Site', key: 'default/a' },
    ],
    faults: { events: [{ kind: 'event-loss', nth: 2 }, { kind: 'recreation', at: 500, params: { pick: 0, gapMs: 1000 } }], background: [{ kind: 'delay', rate: 0.1 }] },
  };
  const other: Scenario = { ...s, faults: { events: [{ kind: 'list-order', nth: 4, params: { order: 3 } }], background: [] } };
  const keep = (e: Parameters<Parameters<typeof applyMutations>[3]>[0]) => e;
  const apply = (ms: Mutation[], derived: Parameters<typeof applyMutations>[4] = []) => applyMutations(s, ms, [other], keep, derived, 10_000);

  it('adds, drops, nudges, borrows and derives fault events, leaving the parent untouched', () => {
    expect(apply([{ op: 'add', event: { kind: 'api-conflict', nth: 1 }, at: 0, after: 0 }]).faults.events[0]).toEqual({ kind: 'api-conflict', nth: 1 });
    expect(apply([{ op: 'drop', i: 1 }]).faults.events).toEqual([{ kind: 'event-loss', nth: 2 }]);
    expect(apply([{ op: 'nudge', i: 0, field: 0, by: -1 }]).faults.events[0]).toEqual({ kind: 'event-loss', nth: 1 });
    // a time moves in steps of 250 ms, a time-like parameter too
    expect(apply([{ op: 'nudge', i: 1, field: 0, by: 2 }]).faults.events[1]!.at).toBe(1000);
    expect(apply([{ op: 'nudge', i: 1, field: 1, by: 1 }]).faults.events[1]!.params).toEqual({ pick: 0, gapMs: 1250 });
    expect(apply([{ op: 'borrow', from: 0, i: 0, after: 0 }]).faults.events.at(-1)).toEqual({ kind: 'list-order', nth: 4, params: { order: 3 } });
    expect(apply([{ op: 'derived', s: 0, i: 1 }], [[{ kind: 'a', nth: 1 }], [{ kind: 'b', nth: 2 }]]).faults.events.at(-1)).toEqual({ kind: 'b', nth: 2 });
    expect(s.faults.events).toHaveLength(2);
  });

  it('nudges only quantities (durations, counts, indices): a status code any fault kind draws stays what it drew', () => {
    const gen = { controllers: ['web'], kinds: ['Site'], keys: ['default/a', 'default/b'], faultWindowMs: 10_000, maxNth: 8 };
    let statuses = 0;
    for (const m of allFaults) {
      for (const events of fc.sample(m.arbitrary(gen), { seed: 1, numRuns: 150 })) {
        for (const e of events) {
          const parent: Scenario = { ...s, faults: { events: [e], background: [] } };
          for (let field = 0; field < numericFields(e).length; field++) {
            for (const by of [-3, -1, 1, 3]) {
              const out = applyMutations(parent, [{ op: 'nudge', i: 0, field, by }], [], keep, [], 10_000).faults.events[0]!;
              for (const [k, v] of Object.entries(out.params ?? {})) if (v !== e.params?.[k]) expect(k, `${m.kind}: ${JSON.stringify(e)} nudged`).toMatch(/^ms$|Ms$|Seconds$|^(pick|order|node|replay|versionsBehind|versionsBack)$/);
              if (typeof e.params?.['status'] === 'number') {
                statuses++;
                expect(out.params?.['status'], `${m.kind}: ${JSON.stringify(e)}`).toBe(e.params['status']);
              }
            }
          }
        }
      }
    }
    // flaky-downstream and api-error draw status codes: the check above saw some
    expect(statuses).toBeGreaterThan(0);
  });

  it('re-seeds, sets a background rate, and moves a later action (never a create) in time', () => {
    expect(apply([{ op: 'reseed', seed: 9 }]).seed).toBe(9);
    expect(apply([{ op: 'background', rate: { kind: 'delay', rate: 0.3 } }]).faults.background).toEqual([{ kind: 'delay', rate: 0.3 }]);
    expect(apply([{ op: 'shift', i: 0, by: -1 }]).workload.map((a) => a.at)).toEqual([0, 750]);
  });

  it('places a second fault right after one of the parent\'s faults: by time, or at the next occurrence of its counter', () => {
    const occ = new Map([['watch', [0, 10, 600, 700]]]);
    const place = placeAfter([500], (e, t) => (counterOf(e, ['web']) === undefined ? undefined : nthAtOrAfter(occ, counterOf(e, ['web'])!, t)), 10_000);
    expect(place({ kind: 'recreation', at: 9000 }, 1).at).toBe(501);
    expect(place({ kind: 'watch-event-loss', nth: 0 }, 1).nth).toBe(2);
    expect(place({ kind: 'watch-event-loss', nth: 0 }, 2).nth).toBe(0); // even: as drawn
    expect(counterOf({ kind: 'crash-restart', nth: 1, params: { point: 'after-fetch' } }, ['web'])).toBe('request:web');
  });
});
