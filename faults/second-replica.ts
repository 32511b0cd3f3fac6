import fc from 'fast-check';
import { defineFault } from '../src/harness/fault.js';
import { bool, eventsOf } from './_internals/plan.js';

/**
 * Second replica: from time `at` until the fault window closes, a second replica of the
 * controller runs next to the first (a rolling update overlapping old and new pods, a scaled-up
 * Deployment). With `leaderElection: true` it takes part in the controller's own leader election
 * (so a controller without election reconciles twice); with `false` it ignores the Lease (split
 * brain: a replica whose lease expired during a long pause but does not know it). A correct
 * reconciler survives: it uses leader election, and its creates are idempotent (deterministic
 * names) so even two writers converge on one object. One that creates with generated names from
 * its cache makes duplicates when both replicas act on the same event.
 *
 * Events: `{ kind: 'second-replica', at, params: { leaderElection } }`; `target` names the
 * controller (default: every controller of the scenario). No background form.
 * @public
 */
export const secondReplica = defineFault({
  kind: 'second-replica',
  models: 'a second replica of the controller running at the same time, with or without leader election',
  survivedBy: 'leader election, and idempotent creates (deterministic names)',
  actsOn: 'controller',
  arbitrary: (ctx) =>
    eventsOf(
      fc.record({ kind: fc.constant('second-replica'), at: fc.integer({ min: 0, max: Math.max(0, ctx.faultWindowMs - 1) }), params: fc.record({ leaderElection: fc.constantFrom(true, false) }) }),
      1,
    ),
  install({ world, fired }, plan) {
    const stops: (() => void)[] = [];
    const stopAll = () => {
      for (const s of stops.splice(0)) s();
    };
    const timers = plan.events
      .filter((e) => e.at !== undefined)
      .map((e) =>
        world.kernel.at(e.at!, () => {
          if (world.phase !== 'faults') return;
          const honour = bool(e.params, 'leaderElection', true);
          for (const m of world.managers) {
            if (e.target !== undefined && m.def.name !== e.target) continue;
            stops.push(m.addReplica(honour));
            fired({ at: e.at, controller: m.def.name, replica: m.instances.length - 1, leaderElection: honour, controllerUsesElection: m.def.leaderElection });
          }
        }),
      );
    // the overlap ends with the fault window
    world.onSettle.push(stopAll);
    return () => {
      for (const t of timers) t.cancelled = true;
      stopAll();
    };
  },
});
