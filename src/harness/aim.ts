import { fnv1a, stableStringify } from '../sim/hash.js';
import type { FaultEvent } from './fault-plan.js';
import type { RunRecord } from './property.js';
import type { Scenario } from './scenario.js';
import { derive, STRATEGY_FAULT, type SystematicStrategy } from './systematic-plans.js';
import { indexTrace } from './systematic-strategies/trace-index.js';

/**
 * Fault-site-aware swarm search (issue 16): a fault drawn blind (the nth list of the run, the nth
 * watch delivery) rarely lands where it matters: a permuted list changes nothing unless a write
 * follows it in the same reconcile, a lagging cache nothing unless the controller acts on it. So
 * half the fault events of a generated run (chosen by a hash of the event as drawn) bring along a
 * plan one of the systematic strategies of the event's kind derives from the run's fault-free
 * twin (a permuted list for a list that precedes a write, a duplicated or delayed event before a
 * write, a stale view across another actor's change, a crash between two steps…), picked by the
 * same hash (a strategy first, then one of its plans). The drawn events all stay (replacing half
 * of them made a lost first event, which fast-check's lean to small nths draws often, rarer); the
 * added plan can still mask what the drawn ones would have shown (the Site's convergence failure
 * under every fault kind went from a median of 8 runs to 15.5), so it is opt-in (`aimFaults`). The twin is kept for the differential properties that
 * judge the run against it. A pure function of the scenario: fast-check's seed and path replay
 * it, and the aimed scenario is what runs, shrinks and is reported.
 * @internal
 */

/**
 * A 32-bit hash of a drawn event's content (murmur3's finaliser over FNV-1a): whether it is aimed,
 * and where. Of the event alone, not its index or the run's seed, so shrinking (dropping other
 * events, re-seeding the run) leaves the aim of the events that stay as it was.
 */
function hashOf(e: FaultEvent, salt: number): number {
  let h = fnv1a(stableStringify(e), salt);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/** Whether a drawn fault event is aimed (half of them). @internal */
export function isAimed(e: FaultEvent): boolean {
  return (hashOf(e, 0x811c9dc5) & 1) === 1;
}

/** Whether aiming could change a scenario: one of its events is aimed and of a kind some strategy derives plans for. @internal */
export function wantsAim(s: Scenario, strategies: readonly SystematicStrategy[]): boolean {
  const kinds = new Set(strategies.map((st) => STRATEGY_FAULT[st]));
  return s.faults.events.some((e) => kinds.has(e.kind) && isAimed(e));
}

/** The scenario with its aimed events replaced by plans derived from its fault-free twin (the same object when none is). @internal */
export function aimAtSites(s: Scenario, twin: RunRecord, strategies: readonly SystematicStrategy[]): Scenario {
  const ix = indexTrace(twin);
  // per kind, per strategy that derived any, its plans: a strategy is picked first, so one that derives
  // a plan per list or read does not crowd out one that derives a plan per change
  const plansOf = new Map<string, FaultEvent[][][]>();
  const events: FaultEvent[] = [];
  let changed = false;
  for (const e of s.faults.events) {
    // the drawn event stays: its blind draw (fast-check leans to small nths, the first events of a
    // run) finds what it found before; the plan comes on top
    events.push(e);
    if (!isAimed(e)) continue;
    let plans = plansOf.get(e.kind);
    if (!plans) {
      plans = strategies.filter((st) => STRATEGY_FAULT[st] === e.kind).map((st) => derive(st, ix).plans.map((p) => p.events)).filter((ps) => ps.length > 0);
      plansOf.set(e.kind, plans);
    }
    if (plans.length === 0) continue;
    const h = hashOf(e, 0x5bd1e995);
    const of = plans[h % plans.length]!;
    for (const x of of[Math.floor(h / plans.length) % of.length]!) events.push({ ...x, ...(x.params ? { params: { ...x.params } } : {}) });
    changed = true;
  }
  return changed ? { ...s, faults: { events, background: s.faults.background } } : s;
}
