import fc, { type Arbitrary } from 'fast-check';
import type { FaultGenContext, FaultModule } from '../harness/fault.js';
import type { BackgroundFault, FaultEvent, FaultPlan } from '../harness/fault-plan.js';
import { swarm } from './swarm.js';

/** Options of {@link faultPlan}. @public */
export interface FaultPlanArbitraryOptions {
  /** Fault kinds a plan may use. */
  faults: readonly FaultModule[];
  /** What the fault generators know about the scenario. */
  context: FaultGenContext;
  /**
   * `true`: each run enables a random subset of kinds (each shrinks toward off).
   * `false`: every kind is enabled in every run (a pinned set).
   * @defaultValue true
   */
  swarm?: boolean;
  /** Concrete fault events per plan, over all kinds. @defaultValue 4 */
  maxEvents?: number;
  /** Use the kinds' background rates (intensities that shrink toward zero). @defaultValue true */
  background?: boolean;
}

interface KindPart {
  events: FaultEvent[];
  background: BackgroundFault | null;
}

/**
 * Fault plans for swarm testing: per kind, an on/off switch that shrinks toward off, the kind's
 * own concrete events (shrinking toward fewer, earlier, FIFO ones, via its `arbitrary`) and
 * optionally its background rate (shrinking toward zero, via its `backgroundArbitrary`).
 * @example
 * ```ts
 * faultPlan({ faults: allFaults, context: { controllers: ['web'], kinds: ['WebApp'], keys: ['default/web-0'], faultWindowMs: 30_000, maxNth: 20 } });
 * ```
 * @public
 */
export function faultPlan(options: FaultPlanArbitraryOptions): Arbitrary<FaultPlan> {
  const maxEvents = options.maxEvents ?? 4;
  const useBackground = options.background ?? true;
  const pinned = options.swarm === false;
  const parts = options.faults.map((mod) => {
    // a pinned kind always has its rate (shrinking toward 0); under swarm the rate itself may be off
    const bgArb = useBackground && mod.backgroundArbitrary ? mod.backgroundArbitrary(options.context) : undefined;
    const bg = bgArb === undefined ? fc.constant(null) : pinned ? bgArb : fc.option(bgArb, { nil: null, freq: 2 });
    const events = maxEvents > 0 ? mod.arbitrary(options.context) : fc.constant([] as FaultEvent[]);
    return { key: mod.kind, arbitrary: fc.record({ events, background: bg }) as Arbitrary<KindPart> };
  });
  // where the round-robin starts: shrinks toward 0 (catalogue order)
  const start = fc.nat({ max: Math.max(0, parts.length - 1) });
  return fc.tuple(swarm(parts, { mode: pinned ? 'all' : 'swarm' }), start).map(([chosen, offset]) => {
    const plan: FaultPlan = { events: [], background: [] };
    const on = chosen.filter((c) => c.value !== null) as { key: string; value: KindPart }[];
    const k = on.length > 0 ? offset % on.length : 0;
    const enabled = [...on.slice(k), ...on.slice(0, k)];
    // the event budget goes round-robin over the enabled kinds (first event of each, then the
    // second, …) from a generated starting kind, so kinds late in the catalogue are not starved
    for (let round = 0; plan.events.length < maxEvents; round++) {
      let any = false;
      for (const { key, value } of enabled) {
        const e = value.events[round];
        if (e === undefined) continue;
        any = true;
        if (plan.events.length >= maxEvents) break;
        plan.events.push(e.kind === key ? e : { ...e, kind: key });
      }
      if (!any) break;
    }
    for (const { key, value } of on) {
      if (value.background) plan.background.push(value.background.kind === key ? value.background : { ...value.background, kind: key });
    }
    return plan;
  });
}
