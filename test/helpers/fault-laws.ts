import { appendFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allFaults } from '../../faults/index.js';
import type { EnvironmentActor } from '../../src/harness/environment.js';
import { defineFault, type FaultGenContext, type FaultModule } from '../../src/harness/fault.js';
import { check as harnessCheck } from '../../src/harness/check.js';
import type { CheckOptions } from '../../src/harness/check-options.js';
import { tapWatchStreams } from '../../src/kube-rest/watch-stream.js';
import { realism, streamViolations, type StreamLine } from './realism.js';
import type { BackgroundFault, FaultEvent, FaultPlan } from '../../src/harness/fault-plan.js';
import type { RunRecord } from '../../src/harness/property.js';
import type { Scenario } from '../../src/harness/scenario.js';
import { simulate, type SimulateOptions } from '../../src/harness/simulate.js';
import type { ControllerDefinition } from '../../src/runtime/define-controller.js';

/**
 * The laws every fault module obeys (STYLE.md §7; the model is fast-check's
 * `ArbitraryAssertions.ts`): deterministic for a seed; disabled means no effect; its arbitrary
 * shrinks toward no events and the gentlest parameters (FIFO order, rate 0); and it breaks its
 * paired buggy reconciler while sparing the correct one. Each test file calls
 * {@link faultLaws} once per (fault, reconciler pair).
 */
export interface FaultLawCase {
  fault: FaultModule;
  /** The scenario for a controller (by name) under a fault plan. */
  scenario: (controller: string, faults: FaultPlan, seed?: number) => Scenario;
  /** Healthy without faults, broken by {@link FaultLawCase.breaking}. */
  buggy: ControllerDefinition;
  /** Healthy under the breaking plan and under random plans of the fault's arbitrary. */
  correct: ControllerDefinition;
  /** True when the run ended healthy; otherwise why not, in words. */
  judge: (run: RunRecord) => true | string;
  /** A concrete plan that breaks the buggy reconciler. */
  breaking: FaultPlan;
  /** What the generator may know about the scenario (size `maxNth` to its seam traffic). */
  gen: FaultGenContext;
  /** The single event a plan shrinks to when every non-empty plan fails. */
  minimalEvent: FaultEvent;
  /** Extra simulate options (downstream, environment actors, tailMs, companion faults). */
  options?: Partial<Omit<SimulateOptions, 'controllers'>>;
  /** Random plans the correct reconciler must survive. @defaultValue 25 */
  randomRuns?: number;
  /**
   * fast-check must find a breaking plan for the buggy reconciler by itself and shrink it to
   * this many events. Off when undefined.
   */
  search?: { numRuns: number; shrinksTo: number };
  /** The label of this pair in test names. @defaultValue 'buggy vs correct' */
  label?: string;
}

const EMPTY: FaultPlan = { events: [], background: [] };

/**
 * With `STEADYSTATE_LAW_STATS=<file>`, each search law appends one JSON line (pair, runs to the
 * first breaking plan, shrunk size) to that file: how bench notes compare a fault's power
 * before and after a change. Off otherwise.
 */
function recordSearch(pair: string, runsToDetection: number, shrunkTo: number | undefined): void {
  const file = process.env['STEADYSTATE_LAW_STATS'];
  if (file) appendFileSync(file, `${JSON.stringify({ pair, runsToDetection, shrunkTo })}\n`);
}

/** Runs one scenario with the fault under test (and any companion faults of the case). */
export async function runCase(c: FaultLawCase, def: ControllerDefinition, plan: FaultPlan, seed?: number): Promise<RunRecord> {
  const { faults: extra = [], ...rest } = c.options ?? {};
  const { run } = await simulate(c.scenario(def.name, plan, seed), { tailMs: 0, ...rest, controllers: [def], faults: [c.fault, ...extra] });
  return run;
}

/** How often the run recorded an injection of `kind`. */
export function injections(run: RunRecord, kind: string): number {
  return run.trace.filter((e) => e.type === 'fault:inject' && e['kind'] === kind).length;
}

/** An environment actor that installs `fault` with an empty plan: "enabled but with nothing to do". */
function installedEmpty(fault: FaultModule): EnvironmentActor {
  return {
    name: 'fault-installed-empty',
    description: `installs ${fault.kind} with an empty plan`,
    install: (world) =>
      fault.install({ world, rng: world.rng.fork(`fault:${fault.kind}`), fired: (d) => world.trace.push({ t: world.kernel.now(), type: 'fault:inject', ...d, kind: fault.kind }) }, { events: [], background: [] }),
  };
}

function plans(c: FaultLawCase): fc.Arbitrary<FaultPlan> {
  const bg = c.fault.backgroundArbitrary?.(c.gen);
  return fc.record({
    events: c.fault.arbitrary(c.gen),
    background: bg ? fc.option(bg, { nil: undefined }).map((b): BackgroundFault[] => (b ? [b] : [])) : fc.constant<BackgroundFault[]>([]),
  });
}

/** Declares the law suite of one fault with one buggy/correct pair. */
export function faultLaws(c: FaultLawCase): void {
  const label = c.label ?? 'buggy vs correct';
  describe(`${c.fault.kind} laws (${label})`, () => {
    it('is a well-formed module, registered under its kebab-case file name', () => {
      expect(c.fault.kind).toMatch(/^[a-z][a-z0-9-]*$/);
      expect(allFaults).toContain(c.fault);
      expect(c.fault.models.length).toBeGreaterThan(10);
      expect(c.fault.survivedBy.length).toBeGreaterThan(10);
    });

    it('is deterministic: the same scenario gives the same trace hash', async () => {
      const a = await runCase(c, c.buggy, c.breaking);
      const b = await runCase(c, c.buggy, c.breaking);
      expect(b.hash).toBe(a.hash);
      const [random] = fc.sample(plans(c), { seed: 42, numRuns: 1 });
      const x = await runCase(c, c.correct, random!);
      const y = await runCase(c, c.correct, random!);
      expect(y.hash).toBe(x.hash);
    });

    it('disabled means no effect: installed with an empty plan (or rate 0), the trace is that of no fault at all', async () => {
      for (const def of [c.buggy, c.correct]) {
        const { faults: _f, ...rest } = c.options ?? {};
        const base = c.scenario(def.name, EMPTY);
        const none = await simulate(base, { tailMs: 0, ...rest, controllers: [def], faults: [] });
        const empty = await simulate(
          { ...base, environment: [...(base.environment ?? []), { name: 'fault-installed-empty' }] },
          { tailMs: 0, ...rest, controllers: [def], faults: [], environment: [...(rest.environment ?? []), installedEmpty(c.fault)] },
        );
        expect(empty.run.hash).toBe(none.run.hash);
        if (c.fault.backgroundArbitrary) {
          const zero = await runCase(c, def, { events: [], background: [{ kind: c.fault.kind, rate: 0 }] });
          expect(zero.hash).toBe(none.run.hash);
        }
      }
    });

    it('its arbitrary generates plain-JSON events of its own kind', () => {
      fc.assert(
        fc.property(c.fault.arbitrary(c.gen), (events) => {
          expect(JSON.parse(JSON.stringify(events))).toEqual(events);
          for (const e of events) expect(e.kind).toBe(c.fault.kind);
        }),
        { seed: 7, numRuns: 200 },
      );
    });

    it('shrinks toward no events, and a plan that fails when non-empty shrinks to the gentlest single event', () => {
      const always = fc.check(fc.property(c.fault.arbitrary(c.gen), () => false), { seed: 3 });
      expect(always.failed).toBe(true);
      expect(always.counterexample?.[0]).toEqual([]);
      const nonEmpty = fc.check(fc.property(c.fault.arbitrary(c.gen), (events) => events.length === 0), { seed: 3, numRuns: 500 });
      expect(nonEmpty.failed).toBe(true);
      expect(nonEmpty.counterexample?.[0]).toEqual([c.minimalEvent]);
      if (c.fault.backgroundArbitrary) {
        const bg = fc.check(fc.property(c.fault.backgroundArbitrary(c.gen), () => false), { seed: 3 });
        expect((bg.counterexample?.[0] as BackgroundFault | undefined)?.rate).toBe(0);
      }
    });

    it('the buggy reconciler is healthy without faults (so the fault is what breaks it)', async () => {
      expect(c.judge(await runCase(c, c.buggy, EMPTY))).toBe(true);
    });

    it('the breaking plan fires and breaks the buggy reconciler', async () => {
      const run = await runCase(c, c.buggy, c.breaking);
      expect(injections(run, c.fault.kind)).toBeGreaterThan(0);
      expect(c.judge(run)).toEqual(expect.any(String));
    });

    it('the correct reconciler survives the breaking plan', async () => {
      const run = await runCase(c, c.correct, c.breaking);
      expect(injections(run, c.fault.kind)).toBeGreaterThan(0);
      expect(c.judge(run)).toBe(true);
    });

    it('the correct reconciler survives random plans of the arbitrary', async () => {
      let fired = 0;
      await fc.assert(
        fc.asyncProperty(plans(c), async (plan) => {
          const run = await runCase(c, c.correct, plan);
          fired += injections(run, c.fault.kind);
          const verdict = c.judge(run);
          if (verdict !== true) throw new Error(`${c.correct.name} broke under ${JSON.stringify(plan)}: ${verdict}`);
        }),
        { seed: 11, numRuns: c.randomRuns ?? 25 },
      );
      // the random plans must have exercised the fault, or surviving them proves nothing
      expect(fired).toBeGreaterThan(0);
    });

    if (c.search) {
      const search = c.search;
      it(`fast-check finds a plan that breaks the buggy reconciler and shrinks it to ${search.shrinksTo} event(s)`, async () => {
        const out = await fc.check(
          fc.asyncProperty(c.fault.arbitrary(c.gen), async (events) => c.judge(await runCase(c, c.buggy, { events, background: [] })) === true),
          { seed: 5, numRuns: search.numRuns },
        );
        recordSearch(`${c.fault.kind} (${label})`, out.numRuns, out.counterexample?.[0]?.length);
        expect(out.failed).toBe(true);
        expect(out.counterexample?.[0]).toHaveLength(search.shrinksTo);
      });
    }
  });
}

// ---- the realism law (SPEC §3, issue 11): only histories a real control plane can produce ----

/** A correct controller (or several sharing a world) the realism law runs a fault over. */
export interface RealismTarget {
  name: string;
  controllers: readonly ControllerDefinition[];
  options: Omit<CheckOptions, 'properties' | 'faults' | 'runs' | 'seed'>;
}

/** `fault` at high intensity: its background (when it has one) always at rate 0.5. */
export function intense(fault: FaultModule): FaultModule {
  const bg = fault.backgroundArbitrary;
  return defineFault({ ...fault, ...(bg ? { backgroundArbitrary: (ctx: FaultGenContext) => bg(ctx).map((b) => ({ ...b, rate: 0.5 })) } : {}) });
}

/**
 * Runs `faults` (each at high intensity, all enabled) over `target` and returns what the
 * realism law found: the check's failure (a), (b), (c) shrunk to a minimal scenario, the HTTP
 * streams' violations (d), and how often the faults fired (a law that never fires proves nothing).
 */
export async function realismCheck(faults: readonly FaultModule[], target: RealismTarget, options: { runs: number; seed: number }): Promise<{ failure: string | undefined; streams: string[]; fired: number }> {
  const lines: StreamLine[] = [];
  const untap = tapWatchStreams((l) => lines.push(l));
  let fired = 0;
  try {
    const r = await harnessCheck(target.controllers, {
      ...target.options,
      faults: faults.map(intense),
      properties: [realism()],
      runs: options.runs,
      seed: options.seed,
      swarm: false,
      maxFaultEvents: 8,
      coverage: false,
      determinism: false,
      shrink: { maxSteps: 100, maxMinimizeTests: 100 },
    });
    fired = r.coverage.reduce((n, c) => n + c.injected, 0);
    return { failure: r.ok ? undefined : `${r.summary}\n${r.explanation}\nscenario: ${JSON.stringify(r.scenario)}`, streams: streamViolations(lines), fired };
  } finally {
    untap();
  }
}

/**
 * Declares the realism law of one fault over correct controllers: at high intensity, (a) every
 * informer's view of every object moves forward except at a recorded time travel, (b) every watch
 * stream is in resourceVersion order, (c) every stored object and every change passes the store's
 * validation, (d) every watch stream served over HTTP is a valid kube-apiserver stream, (e) no
 * notification is lost that only a restart could bring back, (f) no informer goes deaf after its stream ends.
 */
export function realismLaw(fault: FaultModule, targets: readonly RealismTarget[], options: { runs: number; seed: number }): void {
  describe(`${fault.kind} realism law`, () => {
    for (const t of targets) {
      it(`produces only realistic histories over ${t.name}`, { timeout: 60_000 }, async () => {
        const r = await realismCheck([fault], t, options);
        expect(r.failure).toBeUndefined();
        expect(r.streams).toEqual([]);
      });
    }
  });
}
