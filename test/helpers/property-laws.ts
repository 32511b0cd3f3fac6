import { describe, expect, it } from 'vitest';
import { simulate } from '../../src/simulate.js';
import type { SimulateOptions } from '../../src/harness/simulate.js';
import type { Property, RunRecord, Verdict } from '../../src/harness/property.js';
import type { Scenario } from '../../src/harness/scenario.js';
import type { ControllerDefinition } from '../../src/runtime/define-controller.js';
import { testFaults } from './test-faults.js';

/**
 * Laws every property (oracle) must pass, fast-check `ArbitraryAssertions` style: it fires on
 * its buggy target with an explanation in the "Let: … Then: …" form that names the key facts,
 * stays quiet on the correct target (fault-free and under faults), and judges deterministically
 * without touching the run it judges.
 */

/** How to run one side of a case. */
export interface Side {
  controllers: ControllerDefinition[];
  /** Extra simulate options (downstream, environment, tailMs). */
  options?: Omit<SimulateOptions, 'controllers' | 'properties'>;
}

/** The outcome of judging one scenario the way `check` does: main run, fault-free twin, extra runs. */
export interface Judged {
  verdict: Verdict;
  run: RunRecord;
  twin: RunRecord | undefined;
  extras: Record<string, RunRecord>;
}

/** The fault-free twin of a scenario: the same scenario with an empty fault plan. */
export function twinOf(scenario: Scenario): Scenario {
  return { ...scenario, faults: { events: [], background: [] } };
}

/** Simulates a scenario (plus twin and extra runs when the property asks) and judges it. */
export async function judgeScenario(property: Property, scenario: Scenario, side: Side): Promise<Judged> {
  const base: SimulateOptions = { ...side.options, controllers: side.controllers, properties: [property], faults: [...testFaults, ...(side.options?.faults ?? [])] };
  const { run } = await simulate(scenario, base);
  const twin = property.needsTwin ? (await simulate(twinOf(scenario), base)).run : undefined;
  const extras: Record<string, RunRecord> = {};
  for (const [name, s] of Object.entries(property.extraRuns?.(scenario) ?? {})) extras[name] = (await simulate(s, base)).run;
  return { verdict: property.judge(run, twin, extras), run, twin, extras };
}

/**
 * Judges a scenario with several properties from one simulation (the probes of all of them run
 * together), one twin and each extra run, the way `check` does: returns the failing verdicts.
 */
export async function judgeAll(props: readonly Property[], scenario: Scenario, side: Side): Promise<{ property: string; verdict: Extract<Verdict, { ok: false }> }[]> {
  const base: SimulateOptions = { ...side.options, controllers: side.controllers, properties: props, faults: [...testFaults, ...(side.options?.faults ?? [])] };
  const { run } = await simulate(scenario, base);
  const twin = props.some((p) => p.needsTwin) ? (await simulate(twinOf(scenario), base)).run : undefined;
  const extras: Record<string, RunRecord> = {};
  for (const p of props) for (const [name, s] of Object.entries(p.extraRuns?.(scenario) ?? {})) extras[name] ??= (await simulate(s, base)).run;
  const out: { property: string; verdict: Extract<Verdict, { ok: false }> }[] = [];
  for (const p of props) {
    const v = p.judge(run, twin, extras);
    if (!v.ok) out.push({ property: p.name, verdict: v });
  }
  return out;
}

/** One law case: a configured property, its buggy target and its correct one. */
export interface LawCase {
  property: Property;
  buggy: Side & { scenario: Scenario };
  correct: Side & { scenarios: { name: string; scenario: Scenario }[] };
  /** Facts the buggy explanation must contain (object names, fields, times). */
  explains: (string | RegExp)[];
}

/** Asserts a failing verdict is well-formed and returns it narrowed. */
export function expectFailure(v: Verdict): Extract<Verdict, { ok: false }> {
  if (v.ok) throw new Error(`expected the property to fire, but it held: ${JSON.stringify(v.stats ?? {})}`);
  expect(v.summary).not.toContain('\n');
  expect(v.summary.length).toBeGreaterThan(10);
  expect(v.explanation).toMatch(/^Let: .+\. Then: .+\.$/s);
  expect(JSON.parse(JSON.stringify(v.evidence))).toEqual(v.evidence);
  return v;
}

/** Asserts a verdict holds, showing the explanation when it does not. */
export function expectQuiet(v: Verdict): void {
  if (!v.ok) throw new Error(`expected the property to hold, but it fired: ${v.summary}\n${v.explanation}`);
}

/** Registers the laws of one property as vitest tests. */
export function propertyLaws(c: LawCase): void {
  describe(`${c.property.name} laws`, () => {
    it('fires on the buggy target and explains the mechanism', async () => {
      const { verdict } = await judgeScenario(c.property, c.buggy.scenario, c.buggy);
      const v = expectFailure(verdict);
      for (const fact of c.explains) {
        if (typeof fact === 'string') expect(v.explanation).toContain(fact);
        else expect(v.explanation).toMatch(fact);
      }
    });
    for (const { name, scenario } of c.correct.scenarios) {
      it(`stays quiet on the correct target: ${name}`, async () => {
        expectQuiet((await judgeScenario(c.property, scenario, c.correct)).verdict);
      });
    }
    it('judges deterministically and leaves the run untouched', async () => {
      const a = await judgeScenario(c.property, c.buggy.scenario, c.buggy);
      const before = JSON.stringify(a.run);
      const again = c.property.judge(a.run, a.twin, a.extras);
      expect(JSON.stringify(a.run)).toBe(before);
      expect(again).toEqual(a.verdict);
      const b = await judgeScenario(c.property, c.buggy.scenario, c.buggy);
      expect(b.verdict).toEqual(a.verdict);
    });
  });
}
