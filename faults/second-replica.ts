import fc from 'fast-check';
import { defineFault } from '../src/harness/fault.js';
import { bool, eventsOf } from './_internals/plan.js';

/**
 * Second replica: from time `at` until the fault window closes, a second replica of the
 * controller runs next to the first (a rolling update overlapping old and new pods, a scaled-up
 * Deployment). Controllers are deployed as they would be: with leader election, so the new
 * replica stands by while the first holds the Lease, unless the controller declares
 * `leaderElection: false`; only then do two *active* replicas reconcile at once. A correct
 * reconciler survives: it runs leader election (or, declared without, its creates are idempotent:
 * deterministic names, idempotency keys). One that creates with generated names from its cache
 * makes duplicates when both replicas act on the same event.
 *
 * Events: `{ kind: 'second-replica', at }`; `target` names the controller (default: every
 * controller of the scenario). An explicit `params: { leaderElection: false }` (never generated)
 * makes the new replica ignore the Lease: split brain, a paused leader that does not know its
 * lease expired. No background form.
 * @public
 */
export const secondReplica = defineFault({
  kind: 'second-replica',
  models: 'a second replica of the controller running at the same time (with leader election unless the controller declares it runs without)',
  survivedBy: 'leader election, or idempotent creates (deterministic names) when declared without it',
  actsOn: 'controller',
  arbitrary: (ctx) => eventsOf(fc.record({ kind: fc.constant('second-replica'), at: fc.integer({ min: 0, max: Math.max(0, ctx.faultWindowMs - 1) }) }), 1),
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
            const elects = m.electing && honour;
            fired({ at: e.at, controller: m.def.name, replica: m.instances.length - 1, leaderElection: elects, controllerUsesElection: m.electing, twoActive: !elects });
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
