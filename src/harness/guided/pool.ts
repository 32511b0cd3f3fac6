import fc, { type Arbitrary } from 'fast-check';
import type { FaultGenContext, FaultModule } from '../fault.js';
import type { RunRecord } from '../property.js';
import type { Scenario } from '../scenario.js';
import type { FaultEvent } from '../fault-plan.js';
import { ALL_STRATEGIES, derive, strategyEnabled, type SystematicStrategy } from '../systematic-plans.js';
import { indexTrace } from '../systematic-strategies/trace-index.js';
import type { CoverageMap } from './behaviour-coverage.js';
import { applyMutations, mutationsArbitrary, placeAfter } from './mutants.js';
import { counterOf, nthAtOrAfter, occurrencesOf, type Occurrences } from './occurrences.js';

/** Runs before this many are fresh draws (plain swarm), so the pool starts from a diverse base. */
const WARMUP = 16;
/** Fresh draws without new coverage after which the pool mutates at its most. */
const STAGNANT = 40;
/** Derived plans kept per strategy and pooled run. */
const DERIVED_PER_STRATEGY = 16;
/** Derived plans kept per pooled run, nearest to its faults first. */
const DERIVED_KEPT = 64;
/** Derived plans kept right after each of a pooled run's faults: per strategy, and in all. */
const NEAR_PER_STRATEGY = 3;
const NEAR_KEPT = 16;
/** Injections of a run that get plans of their own. */
const MAX_NEAR = 32;
/** Parents come from the pooled runs that showed one of this many rarest facts. */
const RARE = 32;

/** How much a pooled run has going on: its fault events and background rates. */
function size(e: Entry): number {
  return e.scenario.faults.events.length + e.scenario.faults.background.length;
}

/** A coverage-adding run kept to be mutated. */
interface Entry {
  scenario: Scenario;
  facts: readonly string[];
  /** Virtual times at which its faults fired. */
  injections: number[];
  /** When each counted occurrence of its run happened (to place a second fault after one of its faults). */
  occurrences: Occurrences;
  controllers: readonly string[];
  /** Fault plans the systematic strategies derive from its run, after its faults, nearest first. */
  derived: (readonly FaultEvent[])[];
  /** Per fault injection of its run, the plans derived right after it, nearest first. */
  near: (readonly FaultEvent[])[][];
}

/**
 * The pool of coverage-adding scenarios and the arbitrary of guided search (fuzzers' corpus
 * scheduling; FairFuzz's rare-first energy; FoundationDB and TigerBeetle swarms): after a warm-up
 * of fresh draws, half the runs (up to four in five once fresh draws stop adding coverage) mutate
 * a pooled scenario: the smallest pooled run that showed
 * one of the rarest behaviour facts (those the fewest runs showed). The choice
 * is a generated number read against the pool as it is when the value is generated, so a check is
 * a pure function of its seed: replaying it rebuilds the same pool (the runs before the replayed
 * one are run again first).
 * @internal
 */
export class ScenarioPool {
  private readonly entries: Entry[] = [];
  /** Generated runs offered so far (passing or not), and how many of them were mutants. */
  runs = 0;
  mutants = 0;
  private readonly made = new WeakSet<Scenario>();
  /** Pooled runs by the facts they showed. */
  private readonly holders = new Map<string, Entry[]>();

  /** Fresh draws since one last added coverage (the pool mutates more once fresh draws stop finding anything). */
  private staleFresh = 0;

  constructor(
    private readonly coverage: CoverageMap,
    private readonly strategies: readonly SystematicStrategy[],
  ) {}

  get size(): number {
    return this.entries.length;
  }

  /** Records one generated run; it joins the pool when it added behaviour coverage and did not fail. */
  offer(run: RunRecord, facts: ReadonlySet<string>, added: number, failed: boolean): void {
    this.runs++;
    const mutant = this.made.has(run.scenario);
    if (mutant) this.mutants++;
    else this.staleFresh = added > 0 ? 0 : this.staleFresh + 1;
    if (added === 0 || failed) return;
    const injections = run.trace.filter((e) => e.type === 'fault:inject').map((e) => e.t);
    const entry: Entry = { scenario: run.scenario, facts: [...facts], injections: [...new Set(injections)], occurrences: occurrencesOf(run), controllers: run.controllers, ...derivedPlans(run, this.strategies) };
    this.entries.push(entry);
    for (const f of facts) {
      const list = this.holders.get(f);
      if (list) list.push(entry);
      else this.holders.set(f, [entry]);
    }
  }

  private parent(roll: number): Entry | undefined {
    const n = this.entries.length;
    // half the runs mutate, up to four in five once fresh draws have stopped adding coverage
    const share = 0.5 + 0.3 * Math.min(1, this.staleFresh / STAGNANT);
    if (this.runs < WARMUP || n === 0 || roll % 1000 >= share * 1000) return undefined;
    // rare first (FairFuzz): one of the rarest facts, then the smallest pooled run that showed it
    const rare = [...this.holders.keys()].sort((a, b) => this.coverage.count(a) - this.coverage.count(b) || (a < b ? -1 : 1)).slice(0, RARE);
    const fact = rare[Math.floor(roll / 1000) % rare.length]!;
    return this.holders.get(fact)!.reduce((best, e) => (size(e) < size(best) ? e : best));
  }

  /** The guided arbitrary: `base`, or a mutant of a pooled scenario. */
  arbitrary(base: Arbitrary<Scenario>, faults: readonly FaultModule[], ctx: FaultGenContext, keepTimes = false): Arbitrary<Scenario> {
    const mutations = mutationsArbitrary(faults, ctx, keepTimes);
    // unbiased: fast-check's bias would make small rolls (so mutants, and one parent) far more likely
    return fc.noBias(fc.nat()).chain((roll) => {
      const parent = this.parent(roll);
      if (!parent) return base;
      const others = this.entries.map((e) => e.scenario);
      const place = placeAfter(
        parent.injections,
        (e, t) => {
          const counter = counterOf(e, parent.controllers);
          return counter === undefined ? undefined : nthAtOrAfter(parent.occurrences, counter, t);
        },
        ctx.faultWindowMs,
      );
      return mutations.map((ms) => {
        const m = applyMutations(parent.scenario, ms, others, place, parent.derived, ctx.faultWindowMs, parent.near);
        this.made.add(m);
        return m;
      });
    });
  }
}

/**
 * Plans the strategies derive from a run, after its faults (when it had some), nearest first: a
 * second fault right after the first meets the state the first one left (the way depth-2
 * systematic mode pairs faults). `derived`: the first few of each strategy after the run's first
 * fault, then by distance. `near`: per fault the run injected, the few plans of each strategy right
 * after it: a later fault (a deletion, a recreation) leaves a state of its own, and the plans after
 * it would be cut off a list that starts at the first fault (guided search needed 226 runs on
 * stuck-cleanup's seed 16 with a recreation pooled 43 times).
 */
function derivedPlans(run: RunRecord, strategies: readonly SystematicStrategy[]): { derived: (readonly FaultEvent[])[]; near: (readonly FaultEvent[])[][] } {
  const ix = indexTrace(run);
  const injected: number[] = [];
  run.trace.forEach((e, i) => {
    if (e.type === 'fault:inject') injected.push(i);
  });
  const plans = strategies.map((s) => derive(s, ix).plans);
  const all: { at: number; events: readonly FaultEvent[] }[] = [];
  for (const list of plans) for (const p of list.filter((p) => p.at > ix.firstInjection).slice(0, DERIVED_PER_STRATEGY)) all.push({ at: p.at, events: p.events });
  // a background rate may inject hundreds of times: at most MAX_NEAR points, spread over the run
  const points = injected.length <= MAX_NEAR ? injected : Array.from({ length: MAX_NEAR }, (_, k) => injected[Math.floor((k * injected.length) / MAX_NEAR)]!);
  const near = points.map((at) => {
    const after: { at: number; events: readonly FaultEvent[] }[] = [];
    for (const list of plans) for (const p of list.filter((p) => p.at > at).slice(0, NEAR_PER_STRATEGY)) after.push({ at: p.at, events: p.events });
    return after.sort((a, b) => a.at - b.at).slice(0, NEAR_KEPT).map((p) => p.events);
  });
  return { derived: all.sort((a, b) => a.at - b.at).slice(0, DERIVED_KEPT).map((p) => p.events), near: near.filter((n) => n.length > 0) };
}

/** The systematic strategies whose fault kind the check uses (guided mutants add what they derive). @internal */
export function strategiesFor(faults: readonly FaultModule[]): SystematicStrategy[] {
  const kinds = new Set(faults.map((f) => f.kind));
  return ALL_STRATEGIES.filter((s) => strategyEnabled(s, kinds));
}
