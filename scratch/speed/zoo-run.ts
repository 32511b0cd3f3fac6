import { check } from '../../src/check.js';
import { defaultProperties } from '../../src/defaults.js';
import { staleSnapshot } from '../../examples/bug-zoo/stale-snapshot/scenario.js';
const entry = staleSnapshot;
const own = new Map(entry.properties.map((p) => [p.name, p]));
const properties = defaultProperties().map((p) => own.get(p.name) ?? p);
export async function run(warm: boolean): Promise<number> {
  const r = await check(entry.correct, { ...entry.options, properties, runs: warm ? 50 : 100, seed: warm ? 1 : 2, shrink: false });
  return r.runs;
}
