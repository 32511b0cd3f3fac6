import { describe, expect, it } from 'vitest';
import { specStatusOwnership } from '../../properties/spec-status-ownership.js';
import { clampSpecBuggy, clampStatusCorrect } from '../../examples/property-targets/widget-controllers.js';
import { createAll, widget, widgetScenario } from '../../examples/property-targets/widget.js';
import { expectFailure, judgeScenario, propertyLaws } from '../helpers/property-laws.js';

const scenario = widgetScenario(['widget'], createAll([widget('big', 8), widget('small', 2)]));

propertyLaws({
  property: specStatusOwnership(),
  buggy: { controllers: [clampSpecBuggy], scenario },
  correct: {
    controllers: [clampStatusCorrect],
    scenarios: [
      { name: 'fault-free', scenario },
      { name: 'event loss', scenario: { ...scenario, faults: { events: [{ kind: 'event-loss', nth: 0 }], background: [{ kind: 'event-loss', rate: 0.3 }] } } },
    ],
  },
  explains: [/update Widget default\/big by controller widget\/0 at t=0\.\d+ s \(changed spec\.size\): spec\.size belong to the user/, 'write observations to status'],
});

describe('specStatusOwnership', () => {
  it('allows configured spec paths', async () => {
    const { verdict } = await judgeScenario(specStatusOwnership({ allowSpecPaths: ['spec.size'] }), scenario, { controllers: [clampSpecBuggy] });
    expect(verdict.ok).toBe(true);
  });
  it('flags a user writing status', async () => {
    const { run } = await judgeScenario(specStatusOwnership(), scenario, { controllers: [clampStatusCorrect] });
    const userStatusWrite = { t: 3000, type: 'store:write' as const, actor: 'user', verb: 'patchStatus', kind: 'Widget', key: 'default/small', uid: 'uid-2', rv: 99, changed: ['status.size'], noop: false };
    const tampered = { ...run, trace: [...run.trace, userStatusWrite] };
    const v = expectFailure(specStatusOwnership().judge(tampered, undefined));
    expect(v.summary).toBe('user wrote status: patchStatus Widget default/small by the user at t=3.0 s (changed status.size)');
    expect(v.explanation).toContain('status is observed state, owned by the controller');
  });
});
