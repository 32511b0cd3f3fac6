import fc from 'fast-check';
import { defineFault } from '../src/harness/fault.js';
import type { FaultEvent } from '../src/harness/fault-plan.js';
import { bool, eventsOf, int } from './_internals/plan.js';

/** The longest API round trip, and the most jitter per leg, generated (virtual ms). */
const MAX_ROUND_TRIP_MS = 20;
const MAX_JITTER_MS = 20;

/**
 * A generated event's API latency, derived from its `at` rather than drawn: a draw of its own
 * would move every value generated after it (the plans of every seeded check and hunt), and
 * derived, it still varies from run to run and shrinks with `at` (to none at 0). Written out in
 * `params`, so a failing plan replays as printed.
 */
function withLatency(e: { kind: 'second-replica'; at: number }): FaultEvent {
  const roundTripMs = e.at % (MAX_ROUND_TRIP_MS + 1);
  const jitterMs = Math.floor(e.at / (MAX_ROUND_TRIP_MS + 1)) % (MAX_JITTER_MS + 1);
  const params = { ...(roundTripMs > 0 ? { roundTripMs } : {}), ...(jitterMs > 0 ? { jitterMs } : {}) };
  return Object.keys(params).length === 0 ? { kind: e.kind, at: e.at } : { kind: e.kind, at: e.at, params };
}

/**
 * Second replica: from time `at` until the fault window closes, a second replica of the
 * controller runs next to the first (a rolling update overlapping old and new pods, a scaled-up
 * Deployment). Controllers are deployed as they would be: with leader election, so the new
 * replica stands by while the first holds the Lease, unless the controller declares
 * `leaderElection: false`; only then do two *active* replicas reconcile at once. A correct
 * reconciler survives: it runs leader election (or, declared without, its creates are idempotent:
 * deterministic names, idempotency keys, and its read-modify-writes send the resourceVersion
 * they read). One that creates with generated names from its cache makes duplicates when both
 * replicas act on the same event.
 *
 * While two replicas are active, each API call of their reconciles (a live read, a write) is a
 * round trip of `params.roundTripMs` virtual ms (0 to 20 in generated events; absent: 0, a call
 * that still yields to the kernel), half to the server and half back, so the other replica's
 * calls land between a read and the write decided from it. Each leg is longer by a seeded draw in
 * [0, `params.jitterMs`] (0 to 20), drawn per replica: without jitter the replicas work in step
 * on the same keys; with it they drift apart. A read-modify-write without the
 * resourceVersion it read (a merge patch claiming a slot, an update of a counter) then lets both
 * replicas "win"; one that sends it gets a 409 and re-reads. Cached reads stay local (no round
 * trip); runs without two active replicas are untouched.
 *
 * Events: `{ kind: 'second-replica', at, params?: { roundTripMs, jitterMs } }`; `target` names
 * the controller (default: every controller of the scenario). An explicit
 * `params: { leaderElection: false }` (never generated) makes the new replica ignore the Lease:
 * split brain, a paused leader that does not know its lease expired. No background form.
 * @public
 */
export const secondReplica = defineFault({
  kind: 'second-replica',
  models: 'a second replica of the controller running at the same time (with leader election unless the controller declares it runs without; then two active replicas, whose API calls interleave)',
  survivedBy: 'leader election, or, declared without it, idempotent creates (deterministic names) and writes guarded by the resourceVersion they read (a 409 re-read and retried)',
  actsOn: 'controller',
  arbitrary: (ctx) => eventsOf(fc.record({ kind: fc.constant('second-replica'), at: fc.integer({ min: 0, max: Math.max(0, ctx.faultWindowMs - 1) }) }).map(withLatency), 1),
  install({ world, rng, fired }, plan) {
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
          const roundTripMs = int(e.params, 'roundTripMs', 0, 0, 60_000);
          const jitterMs = int(e.params, 'jitterMs', 0, 0, 60_000);
          for (const m of world.managers) {
            if (e.target !== undefined && m.def.name !== e.target) continue;
            stops.push(m.addReplica(honour, { roundTripMs, jitterMs, rng }));
            const elects = m.electing && honour;
            fired({ at: e.at, controller: m.def.name, replica: m.instances.length - 1, leaderElection: elects, controllerUsesElection: m.electing, twoActive: !elects, ...(elects ? {} : { roundTripMs, jitterMs }) });
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
