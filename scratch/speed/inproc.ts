// A cold CLI-like check in this process: `rs|hotbug|hotok` (argv[2]), runs (argv[3]); prints CPU ms by phase.
import { check } from '../../src/index.js';
const t0 = process.cpuUsage();
const w = process.argv[2] ?? 'rs';
const runs = Number(process.argv[3] ?? 20);
const mod = (await import(`./t-${w}.ts`)) as Record<string, unknown> & { checkOptions: object };
const ctl = Object.entries(mod).find(([k]) => k !== 'checkOptions')![1];
const t1 = process.cpuUsage(t0);
const r = await check(ctl as never, { ...(mod.checkOptions as object), runs, seed: 1 });
const t2 = process.cpuUsage(t0);
const ms = (c: NodeJS.CpuUsage) => ((c.user + c.system) / 1000).toFixed(0);
console.log(w, r.ok ? 'pass' : `fail ${r.property}`, 'load ms', ms(t1), 'total ms', ms(t2));
