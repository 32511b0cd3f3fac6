import { describe, expect, it } from 'vitest';
import { allFaults, check, defineProgram, type FaultEvent, type Scenario } from '../../src/index.js';
import { sameEndState } from '../../properties/same-end-state.js';

/**
 * A first-come-first-served slot claimer run as a hosted program (examples/operators/slot-claimer:
 * client-node, a JSON patch `test` op its only guard): which slot a Claim gets depends on whether
 * the claimer saw another Claim's deletion first. Red team round 10 F-1: a watch delay made it see
 * the deletion first, where the fault-free run served the new Claim a second earlier; both ends are
 * correct. The fault-free run of a claimer held a few seconds reaches the run's end (src/harness/twin.ts
 * slowPoints: a hosted program that never set a timer was never held). The claimer that frees a
 * slot only on the delete event it hears leaks one deleted while it was down, and is still caught.
 */
const program = (variant: 'correct' | 'buggy') =>
  defineProgram({ entry: `examples/operators/slot-claimer/${variant}.ts`, for: 'Claim', name: 'slot-claimer', resources: [{ kind: 'Claim', plural: 'claims', group: 'example.com', version: 'v1', namespaced: true }], sample: [{}] });
const claim = (at: number, name: string) => ({ at, type: 'create' as const, object: { apiVersion: 'example.com/v1', kind: 'Claim', metadata: { name, namespace: 'default' }, spec: {} } });

/** Claim a takes slot 0 at 1 s; c is created at 5 s and a deleted at 6 s. */
function scenario(events: FaultEvent[]): Scenario {
  return {
    seed: 1,
    controllers: [{ name: 'slot-claimer' }],
    initialObjects: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'slots', namespace: 'default' }, data: { '0': '', '1': '', '2': '' } }],
    workload: [claim(1000, 'a'), claim(5000, 'c'), { at: 6000, type: 'delete', kind: 'Claim', key: 'default/a' }],
    faults: { events, background: [] },
  };
}

async function judge(variant: 'correct' | 'buggy', events: FaultEvent[]): Promise<string> {
  const r = await check(program(variant), { runs: 1, seed: 1, faults: allFaults, properties: [sameEndState()], corpus: { scenarios: [scenario(events)] }, shrink: false, determinism: false, coverage: false });
  return r.ok ? 'passed' : `${r.property}: ${r.summary}`;
}

describe('same-end-state on a hosted first-come-first-served slot claimer', () => {
  it("c's ADDED event 1.1 s late: the claimer sees a's deletion first and gives c the freed slot 0 (fault-free: slot 1), as a fault-free claimer a few seconds slower does", { timeout: 60_000 }, async () => {
    expect(await judge('correct', [{ kind: 'delay', nth: 2, params: { ms: 1100 } }])).toBe('passed');
  });

  it('the claimer that frees a slot only on the delete event it hears, down (crashed) when a was deleted, leaks slot 0: still caught', { timeout: 60_000 }, async () => {
    expect(await judge('buggy', [{ kind: 'crash-restart', nth: 2, params: { point: 'after-write' } }])).toBe('same-end-state: end state differs from the fault-free run: ConfigMap default/slots: data["0"] is "default/a/<uid of Claim default/a>", "" in the fault-free run');
  });
});
