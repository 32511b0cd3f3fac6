import { simulate, type RunRecord, type Scenario, type Verdict } from '../../src/index.js';
import type { BugZooEntry } from './zoo-entry.js';

/** Which version of an exhibit to run. */
export type ZooVariant = 'buggy' | 'correct';

/** The entry's hand-written reproduction, with the controller names of the chosen version. */
export function reproductionOf(entry: BugZooEntry, variant: ZooVariant): Scenario {
  const controllers = entry[variant];
  return {
    ...entry.reproduction,
    controllers: entry.reproduction.controllers.map((c, i) => ({ ...c, name: controllers[i]?.name ?? c.name })),
  };
}

/**
 * Runs an exhibit's reproduction with one version of the controller and judges it with the
 * property that catches the bug (with the fault-free twin and any extra runs the property asks for).
 */
export async function reproduce(entry: BugZooEntry, variant: ZooVariant): Promise<{ verdict: Verdict; run: RunRecord }> {
  const property = entry.property();
  const scenario = reproductionOf(entry, variant);
  const options = {
    controllers: entry[variant],
    faults: entry.extraFaults,
    properties: [property],
    ...(entry.options.downstream ? { downstream: entry.options.downstream } : {}),
    environment: (entry.options.environment ?? []).map((e) => ('actor' in e ? e.actor : e)),
  };
  const { run } = await simulate(scenario, options);
  const twin = property.needsTwin ? (await simulate({ ...scenario, faults: { events: [], background: [] } }, options)).run : undefined;
  const extras: Record<string, RunRecord> = {};
  for (const [name, extra] of Object.entries(property.extraRuns?.(scenario) ?? {})) extras[name] = (await simulate(extra, options)).run;
  return { verdict: property.judge(run, twin, extras), run };
}
