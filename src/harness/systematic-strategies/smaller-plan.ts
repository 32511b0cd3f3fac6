import type { ResolvedCheckOptions } from '../check-options.js';
import type { Property, RunRecord } from '../property.js';
import type { Scenario } from '../scenario.js';
import type { ScenarioRunner } from '../scenario-runner.js';
import { ALL_STRATEGIES, strategyEnabled } from '../systematic-plans.js';
import { SystematicSearch } from './search.js';

/** Fault events and background rates of a scenario. */
export function faultUnits(s: Scenario): number {
  return s.faults.events.length + s.faults.background.length;
}

/**
 * The last shrink stage, for a failure that delta debugging left with more than `keep` faults
 * (each needed where it is, but only because removing one renumbers the occurrences the others
 * count): systematic mode on the failure's own workload, with no faults, looks for a plan of one
 * or two derived faults that fails the same property. Returns it when one is found within the
 * budget and is smaller; undefined otherwise.
 * @internal
 */
export async function smallerPlan(
  scenario: Scenario,
  property: Property,
  runner: ScenarioRunner,
  o: ResolvedCheckOptions,
  options: { keep?: number; maxRuns?: number } = {},
): Promise<{ scenario: Scenario; run: RunRecord } | undefined> {
  const keep = options.keep ?? 3;
  if (faultUnits(scenario) <= keep) return undefined;
  const kinds = new Set(o.faults.map((f) => f.kind));
  const strategies = ALL_STRATEGIES.filter((s) => strategyEnabled(s, kinds));
  const quiet: ResolvedCheckOptions = { ...o, onProgress: undefined };
  const search = new SystematicSearch(runner, quiet, strategies, { limit: 40, depth: 2, maxRuns: options.maxRuns ?? 600, stopOnFailure: true, properties: [property] });
  await search.base({ ...scenario, faults: { events: [], background: [] } });
  const found = search.found;
  if (!found || found.outcome.failure?.property !== property.name) return undefined;
  const s = found.outcome.run.scenario;
  return faultUnits(s) < faultUnits(scenario) ? { scenario: s, run: found.outcome.run } : undefined;
}
