import { check, type CheckFailed } from '../src/index.js';
import { defaultProperties } from '../properties/index.js';
import { falsePositiveCorpus } from '../examples/false-positives/index.js';
const only = process.argv.slice(2);
for (const c of falsePositiveCorpus.filter((x) => only.length === 0 || only.includes(x.name))) {
  const own = new Map((c.properties ?? []).map((p) => [p.name, p]));
  const r = await check(c.controllers, { ...c.options, maxObjects: Math.min(c.options.maxObjects ?? 2, 2), maxActions: 2, properties: defaultProperties().map((p) => own.get(p.name) ?? p), runs: 100, seed: 11, coverage: false });
  if (r.ok) console.log(`ok ${c.name}`);
  else { const f = r as CheckFailed; console.log(`FAIL ${c.name} ${f.property} at ${f.failedAtRun}: ${f.summary}\n  ${f.explanation.slice(0, 1200)}\n  ${JSON.stringify(f.scenario).slice(0, 1200)}`); }
}
