import { allFaults, simulate, type FaultEvent, type Property, type RunRecord, type Scenario, type Verdict } from '../../src/index.js';
import { defaultProperties } from '../../properties/index.js';
import type { MultiFaultExhibit } from './exhibit.js';

/** Which version of an exhibit to run. */
export type Variant = 'buggy' | 'correct';

/** Every built-in property, with the exhibit's configured ones in place of the defaults of the same name. */
export function everyProperty(exhibit: MultiFaultExhibit): Property[] {
  const own = new Map(exhibit.properties.map((p) => [p.name, p]));
  return defaultProperties().map((p) => own.get(p.name) ?? p);
}

/** The exhibit's reproduction with other fault events (e.g. one of them alone). */
export function withFaults(exhibit: MultiFaultExhibit, events: readonly FaultEvent[]): Scenario {
  return { ...exhibit.reproduction, faults: { events: [...events], background: [] } };
}

/**
 * Simulates a scenario with one version of an exhibit, the way `check` does (every built-in fault
 * module, the exhibit's downstream and environment), and judges it with `properties` (with the
 * fault-free twin and any extra runs they ask for).
 */
export async function judge(exhibit: MultiFaultExhibit, variant: Variant, scenario: Scenario, properties: readonly Property[] = [exhibit.property()]): Promise<{ run: RunRecord; failures: { property: string; verdict: Extract<Verdict, { ok: false }> }[] }> {
  const options = {
    controllers: exhibit[variant],
    faults: allFaults,
    properties: [...properties],
    ...(exhibit.options.downstream ? { downstream: exhibit.options.downstream } : {}),
    environment: (exhibit.options.environment ?? []).map((e) => ('actor' in e ? e.actor : e)),
  };
  const { run } = await simulate(scenario, options);
  const twin = properties.some((p) => p.needsTwin) ? (await simulate({ ...scenario, faults: { events: [], background: [] } }, options)).run : undefined;
  const extras: Record<string, RunRecord> = {};
  for (const p of properties) for (const [name, extra] of Object.entries(p.extraRuns?.(scenario) ?? {})) extras[name] ??= (await simulate(extra, options)).run;
  const failures: { property: string; verdict: Extract<Verdict, { ok: false }> }[] = [];
  for (const p of properties) {
    const v = p.judge(run, twin, extras);
    if (!v.ok) failures.push({ property: p.name, verdict: v });
  }
  return { run, failures };
}
