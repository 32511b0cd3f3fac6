import { environmentSeams, type EnvironmentDecision } from '../../src/harness/environment.js';
import type { FaultInstallContext, FaultInstallPlan } from '../../src/harness/fault.js';
import { ObjectPicker, oncePerObject } from '../../src/environment/_internals/select.js';

/**
 * The install of a fault that stops picked pods from running or becoming Ready: the plan picks
 * pods (nth, target, background rate), and each picked pod's run/ready steps get `decision`.
 * With `at`, pods already past those steps are looked at again at that time.
 */
export function installPodReadinessFault({ world, rng, fired }: FaultInstallContext, plan: FaultInstallPlan, decision: EnvironmentDecision): () => void {
  if (plan.events.length === 0 && !plan.background.some((b) => b.rate > 0)) return () => undefined;
  const seams = environmentSeams(world);
  const picker = new ObjectPicker(plan.events, plan.background, rng);
  const once = oncePerObject(fired);
  const undo = seams.install({
    onStep(i) {
      if (i.kind !== 'Pod' || (i.step !== 'pod:ready' && i.step !== 'pod:run')) return undefined;
      const how = picker.picks(i);
      if (how === undefined) return undefined;
      once(i, how);
      return decision;
    },
  });
  const timers = plan.events.filter((e) => e.at !== undefined).map((e) => world.kernel.at(e.at!, () => world.phase === 'faults' && seams.poke('Pod')));
  return () => {
    undo();
    for (const t of timers) t.cancelled = true;
  };
}
