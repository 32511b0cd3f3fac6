import type { FaultEvent } from '../fault-plan.js';
import type { TraceIndex } from './trace-index.js';

/**
 * One way to derive concrete fault plans from a run (SPEC §3 systematic mode, after Sieve and
 * Acto): which points of the run it targets, the fault events that hit them, and which
 * candidate points it leaves out and why (pruning, as Sieve prunes: nothing stale to show,
 * nothing half-done at that point, the same point as another plan).
 * @internal
 */
export interface Strategy {
  name: string;
  /** The fault kind its plans use. */
  kind: string;
  /** Other fault kinds its plans use too (a crash before a stale list): the strategy runs only when all are enabled. @defaultValue [] */
  needs?: readonly string[];
  derive(ix: TraceIndex): Derivation;
}

/** One derived plan. @internal */
export interface DerivedPlan {
  strategy: string;
  events: FaultEvent[];
  /** What in the run it targets, in words. */
  target: string;
  /** Trace index of the targeted occurrence (a plan derived from a faulted run must act after its fault). */
  at: number;
  /**
   * Plans with the same point (e.g. "after step 2 of reconcile 7" reached by crashing after a
   * write or before the next request) put the run in the same state: only the first one runs.
   */
  point?: string;
}

/** Plans and the reasons candidates were left out (reason → count). @internal */
export interface Derivation {
  plans: DerivedPlan[];
  pruned: Record<string, number>;
}

/** Collects plans and pruning counts. @internal */
export class DerivationBuilder {
  readonly plans: DerivedPlan[] = [];
  readonly pruned: Record<string, number> = {};
  constructor(private readonly strategy: string) {}
  add(plan: Omit<DerivedPlan, 'strategy'>): void {
    this.plans.push({ strategy: this.strategy, ...plan });
  }
  prune(reason: string, n = 1): void {
    this.pruned[reason] = (this.pruned[reason] ?? 0) + n;
  }
  result(): Derivation {
    return { plans: this.plans, pruned: this.pruned };
  }
}
