// How many simulations, trace entries and store writes a cold check makes: `rs|hotbug|hotok` (argv[2]), runs (argv[3])
import { check } from '../../src/index.js';
import { Trace, type TraceEntry } from '../../src/sim/trace.js';
let sims = 0, entries = 0, writes = 0;
const seen = new WeakSet<Trace>();
const push = Trace.prototype.push;
Trace.prototype.push = function (this: Trace, e: TraceEntry) {
  if (!seen.has(this)) { seen.add(this); sims++; }
  entries++;
  if (e.type === 'store:write') writes++;
  push.call(this, e);
};
const w = process.argv[2] ?? 'rs';
const runs = Number(process.argv[3] ?? 20);
const mod = (await import(`./t-${w}.ts`)) as Record<string, unknown> & { checkOptions: object };
const ctl = Object.entries(mod).find(([k]) => k !== 'checkOptions')![1];
const c0 = process.cpuUsage();
const r = await check(ctl as never, { ...(mod.checkOptions as object), runs, seed: 1 });
const c = process.cpuUsage(c0);
console.log(w, r.ok ? 'pass' : `fail ${r.property}`, 'sims', sims, 'entries', entries, 'writes', writes, 'cpu ms', ((c.user + c.system) / 1000).toFixed(0));
