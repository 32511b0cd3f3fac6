import { fnv1a, hex8, stableStringify } from '../../sim/hash.js';
import type { ResolvedCheckOptions } from '../check-options.js';
import { CoverageTracker } from '../coverage.js';
import type { FaultEvent } from '../fault-plan.js';
import type { Property, RunRecord } from '../property.js';
import type { Scenario } from '../scenario.js';
import type { ScenarioOutcome, ScenarioRunner } from '../scenario-runner.js';
import { runStats, StatsCollector } from '../stats.js';
import { derive, STRATEGY_FAULT, STRATEGY_KINDS, strategyEnabled, type SystematicStrategy } from '../systematic-plans.js';
import type { SystematicPlanCounts, SystematicReport, SystematicStrategyReport } from '../systematic.js';
import type { DerivedPlan } from './strategy.js';
import { indexTrace } from './trace-index.js';

/** The plan that failed first, and when. @internal */
export interface SystematicFound {
  outcome: ScenarioOutcome;
  /** 1-based run number (reference runs included). */
  runNumber: number;
  plan: NonNullable<SystematicReport['failingPlan']>;
}

function counts(): SystematicPlanCounts {
  return { derived: 0, ran: 0, fired: 0, failures: 0, pruned: {} };
}

function addPruned(into: Record<string, number>, from: Record<string, number>): void {
  for (const [reason, n] of Object.entries(from)) into[reason] = (into[reason] ?? 0) + n;
}

function prune(into: Record<string, number>, reason: string): void {
  into[reason] = (into[reason] ?? 0) + 1;
}

/**
 * What a run did, without times and versions: its reads, writes, reconciles, crashes, restarts and
 * requests in order. Two single-fault runs with equal shapes lead to the same second faults; a
 * crash that the restarted controller repairs with the very same writes still has a shape of its
 * own (it re-read the world after a restart, where a second fault can bite).
 */
function shapeOf(run: RunRecord): string {
  const parts: string[] = [];
  for (const e of run.trace) {
    switch (e.type) {
      case 'store:read':
      case 'store:write':
      case 'downstream:request':
        parts.push(`${e.type} ${String(e['actor'])} ${String(e['verb'] ?? e['method'])} ${String(e['kind'] ?? e['endpoint'])} ${String(e['key'] ?? '')} ${String(e['noop'] ?? '')}`);
        break;
      case 'reconcile:start':
      case 'controller:crash':
      case 'controller:start':
        parts.push(`${e.type} ${String(e['controller'])}/${String(e['replica'])} ${String(e['key'] ?? '')}`);
        break;
      default:
        break;
    }
  }
  return parts.join('\n');
}

/** Every fault kind of the plan injected at least once. */
function firedAll(run: RunRecord, events: readonly FaultEvent[]): boolean {
  const kinds = new Set(events.map((e) => e.kind));
  for (const e of run.trace) if (e.type === 'fault:inject') kinds.delete(String(e['kind']));
  return kinds.size === 0;
}

/** A shape by its length and two hashes (a shape is as long as its run's trace; thousands of them are kept). */
function shapeKey(run: RunRecord): string {
  const shape = shapeOf(run);
  return `${shape.length} ${hex8(fnv1a(shape))} ${hex8(fnv1a(shape, SECOND_SEED))}`;
}
const SECOND_SEED = 0x9e3779b9;

/**
 * The passing single-fault plans of one base scenario that depth 2 extends, chosen as their runs
 * come: those whose faults all fired and whose run's shape neither the reference run nor an
 * earlier single had. Only the plans are kept, not their runs (which `pairs` simulates again,
 * one at a time): the runs of a whole search held until its pairs are gigabytes on a
 * controller with long traces.
 */
class Singles {
  readonly kept: DerivedPlan[] = [];
  /** Singles left out, by reason (counted into the report's `extended.pruned` once pairs start). */
  readonly pruned: Record<string, number> = {};
  private readonly referenceShape: string;
  private readonly seen: Set<string>;

  constructor(reference: RunRecord) {
    this.referenceShape = shapeKey(reference);
    this.seen = new Set([this.referenceShape]);
  }

  add(plan: DerivedPlan, run: RunRecord): void {
    if (!firedAll(run, plan.events)) {
      prune(this.pruned, 'its fault never fired');
      return;
    }
    const fp = shapeKey(run);
    if (this.seen.has(fp)) {
      prune(this.pruned, fp === this.referenceShape ? 'no effect on what the controllers did' : 'the same behaviour as another single fault');
      return;
    }
    this.seen.add(fp);
    this.kept.push(plan);
  }
}

/**
 * The search loop of systematic mode: per base scenario, the fault-free reference run, the
 * single-fault plans every strategy derives from it, and (depth 2) the second faults derived
 * from each single-fault run that changed what the controllers did. Counts what each strategy
 * derived, ran and pruned.
 * @internal
 */
export class SystematicSearch {
  runs = 0;
  found: SystematicFound | undefined;
  readonly coverage: CoverageTracker;
  readonly stats = new StatsCollector();
  private readonly reports: SystematicStrategyReport[];
  private readonly active: SystematicStrategy[];
  private readonly extended = { runs: 0, pruned: {} as Record<string, number> };
  private planRuns = 0;
  private truncated = false;

  constructor(
    private readonly runner: ScenarioRunner,
    private readonly o: ResolvedCheckOptions,
    strategies: readonly SystematicStrategy[],
    private readonly opts: { limit: number; depth: 1 | 2; maxRuns: number; stopOnFailure: boolean; properties?: readonly Property[] },
  ) {
    const kinds = new Set(o.faults.map((f) => f.kind));
    this.reports = strategies.map((s) => ({
      strategy: s,
      kind: STRATEGY_FAULT[s],
      derived: 0,
      plans: 0,
      fired: 0,
      failures: 0,
      pruned: {},
      pairs: counts(),
      ...(strategyEnabled(s, kinds) ? {} : { skipped: STRATEGY_KINDS[s].length > 1 ? `its fault kinds ${STRATEGY_KINDS[s].map((k) => `"${k}"`).join(' and ')} are not all among options.faults` : `its fault kind "${STRATEGY_FAULT[s]}" is not among options.faults` }),
    }));
    this.active = this.reports.filter((r) => !r.skipped).map((r) => r.strategy);
    this.coverage = new CoverageTracker([...new Set(this.active.map((s) => STRATEGY_FAULT[s]))]);
  }

  private reportOf(s: SystematicStrategy): SystematicStrategyReport {
    return this.reports.find((r) => r.strategy === s)!;
  }

  private async judge(s: Scenario, reference: RunRecord | undefined): Promise<ScenarioOutcome> {
    const outcome = await this.runner.judge(s, { ...(this.opts.properties ? { properties: this.opts.properties } : {}), tally: true });
    this.runs++;
    if (reference) this.coverage.add(outcome.run, reference);
    this.stats.add(runStats(outcome.run, !outcome.failure, outcome.latencyMs));
    this.o.onProgress?.({ runs: this.runs, total: this.runs, failures: this.found ? 1 : 0, phase: 'runs' });
    return outcome;
  }

  /** Runs one plan unless the run budget is spent; undefined when it was not run. */
  private async plan(base: Scenario, events: FaultEvent[], reference: RunRecord, pruned: Record<string, number>): Promise<ScenarioOutcome | undefined> {
    if (this.planRuns >= this.opts.maxRuns) {
      this.truncated = true;
      prune(pruned, 'beyond maxRuns');
      return undefined;
    }
    this.planRuns++;
    return this.judge({ ...base, faults: { events, background: [] } }, reference);
  }

  /** Searches one base scenario; true when the search should stop (a failure with stopOnFailure). */
  async base(base: Scenario): Promise<boolean> {
    return this.all([base]);
  }

  /**
   * Searches base scenarios breadth first: every base's reference run and single faults, then
   * (depth 2) every base's pairs. Depth first (one base's pairs before the next base's singles),
   * a single-fault bug of a later base came after thousands of pairs, or never once `maxRuns` was
   * spent (stop 52: machine-pool's twin at run 733 instead of 81, target-registration's at 1,012
   * instead of 146). True when the search should stop (a failure with stopOnFailure).
   */
  async all(bases: readonly Scenario[]): Promise<boolean> {
    const extend: { base: Scenario; reference: RunRecord; singles: Singles }[] = [];
    for (const base of bases) {
      const r = await this.singles(base);
      if (r === true) return true;
      if (r) extend.push({ base, ...r });
    }
    if (this.opts.depth < 2) return false;
    for (const e of extend) if (await this.pairs(e.base, e.reference, e.singles)) return true;
    return false;
  }

  /** One base's reference run and single-fault plans: true to stop, else what depth 2 extends (none when the reference run failed). */
  private async singles(base: Scenario): Promise<true | { reference: RunRecord; singles: Singles } | undefined> {
    const reference = await this.judge({ ...base, faults: { events: [], background: [] } }, undefined);
    if (reference.failure) {
      // the bug needs no fault at all: report it as found on the reference run
      this.found ??= { outcome: reference, runNumber: this.runs, plan: { strategy: this.active[0] ?? 'crash-after-write', target: 'the fault-free reference run itself' } };
      return this.opts.stopOnFailure ? true : undefined;
    }
    const refIndex = indexTrace(reference.run);
    const points = new Set<string>();
    const singles = new Singles(reference.run);
    for (const s of this.active) {
      const rep = this.reportOf(s);
      const d = derive(s, refIndex);
      rep.derived += d.plans.length + Object.values(d.pruned).reduce((a, b) => a + b, 0);
      addPruned(rep.pruned, d.pruned);
      let n = 0;
      for (const p of d.plans) {
        if (n >= this.opts.limit) {
          prune(rep.pruned, 'beyond maxPlans');
          continue;
        }
        if (p.point !== undefined && points.has(p.point)) {
          prune(rep.pruned, 'the same point as an earlier crash plan');
          continue;
        }
        if (p.point !== undefined) points.add(p.point);
        const outcome = await this.plan(base, p.events, reference.run, rep.pruned);
        if (!outcome) continue;
        n++;
        rep.plans++;
        if (firedAll(outcome.run, p.events)) rep.fired++;
        if (outcome.failure) {
          rep.failures++;
          this.found ??= { outcome, runNumber: this.runs, plan: { strategy: s, target: p.target } };
          if (this.opts.stopOnFailure) return true;
        } else if (this.opts.depth === 2) singles.add(p, outcome.run);
      }
    }
    return { reference: reference.run, singles };
  }

  /** Depth 2: second faults derived from each single-fault run that changed the controllers' behaviour. */
  private async pairs(base: Scenario, reference: RunRecord, singles: Singles): Promise<boolean> {
    addPruned(this.extended.pruned, singles.pruned);
    const seenPlans = new Set<string>();
    for (const first of singles.kept) {
      // with the run budget spent, no pair of it could run: not worth simulating it again
      if (this.planRuns >= this.opts.maxRuns) {
        this.truncated = true;
        prune(this.extended.pruned, 'beyond maxRuns');
        continue;
      }
      // the same run as when it was judged (a simulation is a function of its scenario)
      const run = await this.runner.simulate({ ...base, faults: { events: first.events, background: [] } }, this.opts.properties);
      this.extended.runs++;
      const ix = indexTrace(run);
      // second faults of every strategy, interleaved (one of each in turn), so no strategy's many plans starve the others
      const queues = this.active.map((s) => {
        const pairs = this.reportOf(s).pairs;
        const d = derive(s, ix);
        pairs.derived += d.plans.length + Object.values(d.pruned).reduce((a, b) => a + b, 0);
        addPruned(pairs.pruned, d.pruned);
        const keep: DerivedPlan[] = [];
        for (const p of d.plans) {
          if (p.at <= ix.firstInjection) prune(pairs.pruned, 'before the first fault');
          else if (keep.length >= this.opts.limit) prune(pairs.pruned, 'beyond maxPlans');
          else keep.push(p);
        }
        return { s: s, pairs, plans: keep };
      });
      for (let round = 0; queues.some((q) => round < q.plans.length); round++) {
        for (const { s, pairs, plans } of queues) {
          const p = plans[round];
          if (!p) continue;
          const events = [...first.events, ...p.events];
          const key = stableStringify([...events].map((e) => stableStringify(e)).sort());
          if (seenPlans.has(key)) {
            prune(pairs.pruned, 'the same pair as another plan');
            continue;
          }
          seenPlans.add(key);
          const outcome = await this.plan(base, events, reference, pairs.pruned);
          if (!outcome) continue;
          pairs.ran++;
          if (firedAll(outcome.run, events)) pairs.fired++;
          if (!outcome.failure) continue;
          pairs.failures++;
          this.found ??= {
            outcome,
            runNumber: this.runs,
            plan: {
              strategy: s,
              target: `${first.target}; then ${p.target}`,
              faults: [
                { strategy: first.strategy as SystematicStrategy, target: first.target },
                { strategy: s, target: p.target },
              ],
            },
          };
          if (this.opts.stopOnFailure) return true;
        }
      }
    }
    return false;
  }

  report(): SystematicReport {
    const plans = this.reports.reduce((n, r) => n + r.plans + r.pairs.ran, 0);
    return { plans, depth: this.opts.depth, strategies: this.reports, extended: this.extended, truncated: this.truncated, ...(this.found ? { failingPlan: this.found.plan } : {}) };
  }
}
