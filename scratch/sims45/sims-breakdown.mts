import { check } from '../../src/check.js';
import { defaultProperties } from '../../src/defaults.js';
import { staleSnapshot } from '../../examples/bug-zoo/stale-snapshot/scenario.js';
const entry = staleSnapshot;
const own = new Map(entry.properties.map((p) => [p.name, p]));
const properties = defaultProperties().map((p) => own.get(p.name) ?? p);
const seen = new Set<unknown>(); const cats = new Map<string, number>();
const add = (k: string) => cats.set(k, (cats.get(k) ?? 0) + 1);
const c0 = process.cpuUsage();
const r = await check(entry.correct, { ...entry.options, properties, runs: Number(process.env.RUNS ?? 1000), seed: 2, shrink: false, onSimulation: (s: any, idx?: number) => {
  const faults = s.faults.events.length + s.faults.background.length;
  if (seen.has(s)) add('same-object-again'); else if (idx !== undefined && faults > 0) add('faulted'); else if (faults === 0) add('fault-free'); else add('other-faulted');
  seen.add(s);
} } as any);
const c = process.cpuUsage(c0);
console.log(r.ok, r.runs, r.simulations, JSON.stringify([...cats]), 'cpu', ((c.user + c.system) / 1000).toFixed(0));
