import type { Scenario } from './scenario.js';

/** What a check runs with, by name: a saved scenario must use nothing else. @internal */
export interface CheckCatalogue {
  controllers: readonly string[];
  faults: readonly string[];
  environment: readonly string[];
}

/**
 * Why `scenario` cannot run in a check with this catalogue (a corpus entry saved by a check
 * with other `--faults`, controllers or environment actors), or undefined when it fits.
 * @internal
 */
export function scenarioMisfit(scenario: Scenario, with_: CheckCatalogue, here = 'this check'): string | undefined {
  const list = (names: readonly string[]) => (names.length === 0 ? 'none' : names.map((n) => JSON.stringify(n)).join(', '));
  for (const c of scenario.controllers) {
    if (!with_.controllers.includes(c.name)) return `it names controller "${c.name}", which ${here} does not run (it runs ${list(with_.controllers)})`;
  }
  const kinds = [...new Set([...scenario.faults.events.map((e) => e.kind), ...scenario.faults.background.map((b) => b.kind)])].sort();
  const missing = kinds.filter((k) => !with_.faults.includes(k));
  if (missing.length > 0) return `it uses fault kind${missing.length === 1 ? '' : 's'} ${list(missing)}, which ${here} does not enable (it enables ${list(with_.faults)})`;
  for (const e of scenario.environment ?? []) {
    if (!with_.environment.includes(e.name)) return `it names environment actor "${e.name}", which ${here} does not run (it runs ${list(with_.environment)})`;
  }
  return undefined;
}
