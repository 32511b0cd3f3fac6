import { check, type Property } from '../../src/index.js';
import { defaultProperties } from '../../properties/index.js';
import { falsePositiveCorpus, type FalsePositiveCase } from '../../examples/false-positives/index.js';
function propertiesOf(c: FalsePositiveCase): Property[] {
  const own = new Map((c.properties ?? []).map((p) => [p.name, p]));
  const all = defaultProperties().filter((p) => c.withoutProperties?.[p.name] === undefined).map((p) => own.get(p.name) ?? p);
  for (const p of c.properties ?? []) if (!all.some((x) => x.name === p.name) && c.withoutProperties?.[p.name] === undefined) all.push(p);
  return all;
}
const gateOptions = (c: FalsePositiveCase, runs = 28) => ({ ...c.options, maxObjects: Math.min(c.options.maxObjects ?? 2, 2), maxActions: 2, properties: propertiesOf(c), runs, seed: 11, coverage: false });
const only = process.argv[2];
const t0 = process.cpuUsage();
for (const c of falsePositiveCorpus.slice(0, Number(process.argv[3] ?? 6))) {
  if (only && only !== '-' && c.name !== only) continue;
  const a = process.cpuUsage();
  const r = await check(c.controllers, gateOptions(c));
  const b = process.cpuUsage(a);
  console.log(c.name, r.ok, r.runs, ((b.user + b.system) / 1e6).toFixed(2));
}
const t = process.cpuUsage(t0);
console.log('total', ((t.user + t.system) / 1e6).toFixed(2), falsePositiveCorpus.length);
