import { describe, expect, it } from 'vitest';
import { idempotence } from '../../properties/idempotence.js';
import { noHotLoop } from '../../properties/no-hot-loop.js';
import { specFighterBuggy, specFighterCorrect } from '../../examples/property-targets/spec-fighter.js';
import { createAll, widget, widgetScenario } from '../../examples/property-targets/widget.js';
import { expectFailure, judgeScenario } from '../helpers/property-laws.js';

/*
 * The classic defaulting bug: a controller compares the whole spec it builds with the live,
 * defaulted one and updates on any difference. Visible only because the store defaults built-in
 * specs as kube-apiserver does (before, the buggy twin passed both properties).
 */

const scenario = widgetScenario(['widget'], [...createAll([widget('a', 2)]), { at: 2000, type: 'update', kind: 'Widget', key: 'default/a', spec: { size: 3 } }]);
/** The same, with the Deployment and Pod controllers of a cluster running (status events reach the Widget's controller). */
const withCluster = { ...scenario, environment: [{ name: 'cluster' }] };

describe('spec fighter (a whole-spec comparison against the defaulted live Deployment)', () => {
  it('the buggy twin fails idempotence: every re-reconcile of the converged world sends an update that changes nothing', async () => {
    const v = expectFailure((await judgeScenario(idempotence(), scenario, { controllers: [specFighterBuggy] })).verdict);
    expect(v.summary).toMatch(/^not idempotent: re-reconciling the converged world made \d+ store writes?$/);
    expect(v.explanation).toContain('update Deployment default/a');
  });
  it('the buggy twin fails no-hot-loop with the Deployment controller running: it writes while nothing changes', async () => {
    const v = expectFailure((await judgeScenario(noHotLoop(), withCluster, { controllers: [specFighterBuggy] })).verdict);
    expect(v.explanation).toContain('Deployment default/a');
  });
  it('the correct twin, comparing only the fields it sets, passes both, and follows the size change', async () => {
    for (const property of [idempotence(), noHotLoop()]) {
      const { verdict, run } = await judgeScenario(property, withCluster, { controllers: [specFighterCorrect] });
      expect(verdict.ok).toBe(true);
      const dep = run.finalObjects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'a')!;
      expect(dep.spec['replicas']).toBe(3);
      // the Deployment controller ran (its status events reach the Widget's controller too)
      expect(dep.status['availableReplicas']).toBe(3);
      // the live spec carries the server's defaults the controller never wrote
      expect(dep.spec['strategy']).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
    }
  });
});
