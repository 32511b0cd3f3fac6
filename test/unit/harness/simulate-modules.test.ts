import { describe, expect, it } from 'vitest';
import { simulate, ScenarioError } from '../../../src/harness/simulate.js';
import type { FaultModule } from '../../../src/harness/fault.js';
import type { EnvironmentActor } from '../../../src/harness/environment.js';
import { scenario } from '../../helpers/fixtures.js';

/** A fault module that only records that it was installed (and which one of its kind it is). */
function recorder(kind: string, label: string, installed: string[]): FaultModule {
  return {
    kind,
    models: 'nothing',
    survivedBy: 'nothing',
    actsOn: 'watch',
    arbitrary: () => {
      throw new Error('not generated here');
    },
    install: () => {
      installed.push(label);
      return () => undefined;
    },
  } as unknown as FaultModule;
}

describe('simulate: the fault modules and environment actors a scenario names', () => {
  it('takes the last module of a kind, installs only the kinds the plan names, and names the known kinds when one is missing', async () => {
    const installed: string[] = [];
    const faults = [recorder('a', 'a-first', installed), recorder('b', 'b', installed), recorder('a', 'a-last', installed)];
    const s = scenario({ controllers: [], faults: { events: [], background: [{ kind: 'a', rate: 0.5 }] }, options: { faultWindowMs: 10, settleMs: 0 } });
    await simulate(s, { controllers: [], faults, tailMs: 0 });
    expect(installed).toEqual(['a-last']);
    const missing = { ...s, faults: { events: [], background: [{ kind: 'c', rate: 0.5 }] } };
    await expect(simulate(missing, { controllers: [], faults, tailMs: 0 })).rejects.toThrow(ScenarioError);
    await expect(simulate(missing, { controllers: [], faults, tailMs: 0 })).rejects.toThrow(/names kind "c", but no fault module of that kind was given \(known: a, b\)/);
    await expect(simulate(missing, { controllers: [], tailMs: 0 })).rejects.toThrow(/\(known: none\)/);
  });

  it('takes the last actor of a name and names the known actors when one is missing', async () => {
    const installed: string[] = [];
    const actor = (name: string, label: string): EnvironmentActor => ({ name, install: () => (installed.push(label), () => undefined) }) as unknown as EnvironmentActor;
    const environment = [actor('x', 'x-first'), actor('y', 'y'), actor('x', 'x-last')];
    const s = scenario({ controllers: [], environment: [{ name: 'x' }], options: { faultWindowMs: 10, settleMs: 0 } });
    await simulate(s, { controllers: [], environment, tailMs: 0 });
    expect(installed).toEqual(['x-last']);
    await expect(simulate({ ...s, environment: [{ name: 'z' }] }, { controllers: [], environment, tailMs: 0 })).rejects.toThrow(/names environment actor "z", but none of that name was given \(known: x, y\)/);
  });
});
