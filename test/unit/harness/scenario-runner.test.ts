import { describe, expect, it } from 'vitest';
import { ScenarioRunner } from '../../../src/harness/scenario-runner.js';
import { defineProperty } from '../../../src/harness/property.js';
import type { Scenario } from '../../../src/harness/scenario.js';
import { levelTriggered } from '../../../examples/replicas/level-triggered.js';
import { eventLoss } from '../../../faults/event-loss.js';

const scenario = (faults: Scenario['faults']): Scenario => ({
  seed: 1,
  controllers: [{ name: 'level-triggered' }],
  initialObjects: [],
  workload: [{ at: 0, type: 'create', object: { kind: 'ReplicaSet', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 2 }, status: { replicas: 0 } } }],
  faults,
  options: { faultWindowMs: 2000, settleMs: 2000 },
});

describe('ScenarioRunner', () => {
  const seen: string[] = [];
  const pass = (name: string, needsTwin = false) => defineProperty({ name, description: name, defaults: {}, needsTwin, judge: (_run, _o, twin) => (seen.push(`${name}:${twin ? 'twin' : 'none'}`), { ok: true }) })();
  const failing = defineProperty({ name: 'failing', description: 'fails', defaults: {}, judge: () => ({ ok: false, summary: 'no', explanation: 'Let: x. Then: y.', evidence: { n: 1 } }) })();

  it('judges in order, stops at the first failure, and runs the twin only for properties that need it', async () => {
    seen.length = 0;
    const runner = new ScenarioRunner({ controllers: [levelTriggered], faults: [eventLoss], tailMs: 0 }, [pass('a'), pass('b', true), failing, pass('c')]);
    const out = await runner.judge(scenario({ events: [{ kind: 'event-loss', nth: 0 }], background: [] }));
    expect(seen).toEqual(['a:none', 'b:twin']);
    expect(out.failure).toEqual({ property: 'failing', summary: 'no', explanation: 'Let: x. Then: y.', evidence: { n: 1 } });
    expect(out.twin!.scenario.faults).toEqual({ events: [], background: [] });
    expect(runner.simulations).toBe(2);
  });

  it("runs a twin with the probes of the properties given the twin only (the others never read its samples)", async () => {
    const probed = (name: string, needsTwin: boolean) => {
      const calls = { n: 0 };
      const p = defineProperty({
        name,
        description: name,
        defaults: {},
        needsTwin,
        probes: () => [{ name, everyMs: 500, phases: ['faults', 'settle', 'tail'], fn: () => (calls.n++, true) }],
        judge: (run, _o, twin) => ({ ok: true, stats: { mine: run.probes[name]?.length ?? 0, twins: twin?.probes[name]?.length ?? -1 } }),
      })();
      return { p, calls };
    };
    const differential = probed('differential', true);
    const plain = probed('plain', false);
    const runner = new ScenarioRunner({ controllers: [levelTriggered], faults: [eventLoss], tailMs: 0 }, [plain.p, differential.p]);
    await runner.judge(scenario({ events: [{ kind: 'event-loss', nth: 0 }], background: [] }));
    expect(runner.simulations).toBe(2);
    // both simulations sampled the differential property; the plain one only in the judged run
    expect(differential.calls.n).toBe(2 * plain.calls.n);
    expect(plain.calls.n).toBeGreaterThan(0);
  });

  it('runs the twin for coverage only when a fault fired', async () => {
    const runner = new ScenarioRunner({ controllers: [levelTriggered], faults: [eventLoss], tailMs: 0 }, [pass('a')]);
    const quiet = await runner.judge(scenario({ events: [{ kind: 'event-loss', nth: 999 }], background: [] }), { twinWhenFaultsFired: true });
    expect(quiet.twin).toBeUndefined();
    const fired = await runner.judge(scenario({ events: [{ kind: 'event-loss', nth: 0 }], background: [] }), { twinWhenFaultsFired: true });
    expect(fired.twin).toBeDefined();
  });

  it('simulates the extra runs a property asks for and hands them to its judge', async () => {
    let extras: unknown;
    const wantsExtra = defineProperty({
      name: 'extra',
      description: 'extra run',
      defaults: {},
      extraRuns: (s) => ({ reverted: { ...s, workload: [] } }),
      judge: (_run, _o, _twin, e) => ((extras = e), { ok: true }),
    })();
    const runner = new ScenarioRunner({ controllers: [levelTriggered], faults: [eventLoss], tailMs: 0 }, [wantsExtra]);
    await runner.judge(scenario({ events: [], background: [] }));
    expect(Object.keys(extras as object)).toEqual(['reverted']);
    expect((extras as Record<string, { scenario: Scenario }>)['reverted']!.scenario.workload).toEqual([]);
  });

  it('reports the convergence latency a property gives in its stats', async () => {
    const latency = defineProperty({ name: 'latency', description: 'l', defaults: {}, judge: () => ({ ok: true, stats: { latencyMs: 123 } }) })();
    const runner = new ScenarioRunner({ controllers: [levelTriggered], tailMs: 0 }, [latency]);
    expect((await runner.judge(scenario({ events: [], background: [] }))).latencyMs).toBe(123);
  });
});
