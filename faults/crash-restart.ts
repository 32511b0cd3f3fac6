import fc from 'fast-check';
import { defineFault } from '../src/harness/fault.js';
import type { FaultEvent } from '../src/harness/fault-plan.js';
import { eventsOf, rate, str, strongest } from './_internals/plan.js';

/**
 * Crash/restart: the controller process dies (OOM kill, node failure, a rollout) between two
 * API calls, losing its queue, its cache and every in-memory note (`ctx.state` is made afresh),
 * and comes back after the scenario's `restartDelayMs` with fresh informers. "Right after the
 * k-th write" is the point that finds crash-consistency bugs: the first of two writes happened,
 * the second never will.
 * A correct reconciler survives because it reconciles from observed state and its steps are
 * idempotent (deterministic names); one that creates with a generated name and records it in a
 * second write creates again after the restart.
 *
 * Events: `{ kind: 'crash-restart', nth, params: { point } }`: with `point: 'after-write'`
 * (default) the controller dies right after its nth write of the run (0-based, all replicas);
 * with `'before-write'` right before its nth write (so the write never happens); with
 * `'before-call'` right before its nth client call; with `'before-fetch'` / `'after-fetch'`
 * right before its nth downstream request (`ctx.fetch`, 0-based, all replicas) or right after it
 * answered (or failed), before the controller could act on the answer: a created external
 * resource whose id was never recorded. `{ kind: 'crash-restart', at }` kills it
 * at that virtual time wherever it is. `target` names the controller (default: any). Each event
 * fires once. Background: `{ kind: 'crash-restart', rate }` crashes before each call with that
 * probability.
 * @public
 */
export const crashRestart = defineFault({
  kind: 'crash-restart',
  models: 'the controller process dying between two API calls and restarting with empty memory',
  survivedBy: 'reconciling from observed state with idempotent steps (deterministic names)',
  actsOn: 'controller',
  arbitrary: (ctx) =>
    eventsOf(fc.record({ kind: fc.constant('crash-restart'), nth: fc.nat({ max: ctx.maxNth }), params: fc.record({ point: fc.constantFrom('after-write', 'before-call') }) }), 2),
  backgroundArbitrary: () => fc.record({ kind: fc.constant('crash-restart'), rate: rate().map((r) => r / 10) }),
  install({ world, rng, fired }, plan) {
    const pending = new Set<FaultEvent>(plan.events.filter((e) => e.nth !== undefined));
    const bg = strongest(plan.background);
    const calls = new Map<string, number>();
    const timers = plan.events
      .filter((e) => e.nth === undefined && e.at !== undefined)
      .map((e) =>
        world.kernel.at(e.at!, () => {
          if (world.phase !== 'faults') return;
          for (const m of world.managers) {
            if (e.target !== undefined && m.def.name !== e.target) continue;
            for (const inst of m.live()) {
              fired({ at: e.at, controller: m.def.name, replica: inst.replica });
              inst.crash('killed (crash-restart fault)');
            }
          }
        }),
      );
    const off = world.seams.install({
      onCall(i) {
        if (i.downstream) {
          // around a downstream request: 'before-fetch' / 'after-fetch' count the controller's requests
          const d = i.downstream;
          for (const e of pending) {
            if (e.target !== undefined && e.target !== i.controller) continue;
            const point = str(e.params, 'point', 'after-write');
            if (point !== `${i.phase}-fetch` || d.seq !== e.nth) continue;
            pending.delete(e);
            fired({ nth: e.nth, point, controller: i.controller, replica: i.replica, verb: `${d.method} ${d.url}` });
            return 'crash';
          }
          return undefined;
        }
        let n = -1;
        if (i.phase === 'before') {
          n = calls.get(i.controller) ?? 0;
          calls.set(i.controller, n + 1);
        }
        for (const e of pending) {
          if (e.target !== undefined && e.target !== i.controller) continue;
          const point = str(e.params, 'point', 'after-write');
          if (point === 'before-fetch' || point === 'after-fetch') continue;
          const hit =
            point === 'before-call' ? n === e.nth : point === 'before-write' ? i.phase === 'before' && i.write && i.writeSeq === e.nth : i.phase === 'after' && i.write && i.writeSeq === e.nth! + 1;
          if (!hit) continue;
          pending.delete(e);
          fired({ nth: e.nth, point, controller: i.controller, replica: i.replica, verb: i.verb });
          return 'crash';
        }
        if (bg && i.phase === 'before' && rng.chance(bg.rate)) {
          // nth/target/params: the concrete event that replays this crash, so shrinking can make it concrete
          fired({ nth: n, target: i.controller, params: { point: 'before-call' }, controller: i.controller, replica: i.replica, verb: i.verb, background: true });
          return 'crash';
        }
        return undefined;
      },
    });
    return () => {
      for (const t of timers) t.cancelled = true;
      off();
    };
  },
});
