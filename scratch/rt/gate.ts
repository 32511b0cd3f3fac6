// npx tsx scratch/rt46/gate.ts <case,...> : the corpus gate's small-world options (28 runs, seed 11) on the case and (100 runs) on its twin
import { check } from '../../src/index.js';
import { defaultProperties } from '../../properties/index.js';
import type { Property } from '../../src/index.js';
const FIND_RUNS = 100;
// as test/helpers/false-positives.ts gateOptions (which imports vitest)
function gateOptions(c: { options: { maxObjects?: number; properties?: readonly Property[] } }, runs = 28) {
  const own = new Map((c.options.properties ?? []).map((p) => [p.name, p]));
  const properties = defaultProperties().map((p) => own.get(p.name) ?? p);
  return { ...c.options, maxObjects: Math.min(c.options.maxObjects ?? 2, 2), maxActions: 2, properties, runs, seed: 11, coverage: false };
}
import { cases } from './fixtures/controllers.js';
const names = (process.argv[2] ?? '').split(',');
for (const c of cases.filter((x) => names.includes(x.name))) {
  const fp = { options: c.options as never };
  const opts = gateOptions(fp as never);
  const r = await check(c.controllers, opts as never);
  console.log(c.name, 'gate', r.ok ? 'passed' : `FAIL ${r.property}`);
  if (c.buggy) {
    const b = await check(c.buggy, { ...(gateOptions(fp as never, FIND_RUNS) as object), shrink: false } as never);
    console.log(c.name, 'twin', b.ok ? 'NOT CAUGHT' : `caught by ${b.property} at run ${b.failedAtRun}`);
  }
}
