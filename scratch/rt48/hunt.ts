// npx tsx scratch/rt48/hunt.ts <case,...|all> <runs> <seeds e.g. 1,2> [guided] [buggy] [big] [verbose]
import { check } from '../../src/index.js';
import { defaultProperties } from '../../properties/index.js';
import { cases, type Case } from './cases.js';

function propertiesOf(c: Case) {
  const own = new Map((c.properties ?? []).map((p) => [p.name, p]));
  const all = defaultProperties().filter((p) => c.withoutProperties?.[p.name] === undefined).map((p) => own.get(p.name) ?? p);
  for (const p of c.properties ?? []) if (!all.some((x) => x.name === p.name)) all.push(p);
  return all;
}
const [which = 'all', runsArg = '300', seedsArg = '1', ...flags] = process.argv.slice(2);
const guided = flags.includes('guided');
const buggy = flags.includes('buggy');
const gate = flags.includes('gate');
const big = flags.includes('big') ? { maxObjects: 4, maxActions: 8 } : {};
for (const c of cases.filter((x) => which === 'all' || which.split(',').includes(x.name))) {
  for (const seed of seedsArg.split(',').map(Number)) {
    const ctrls = buggy ? c.buggy : c.controllers;
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const small = gate ? { maxObjects: Math.min(c.options.maxObjects ?? 2, 2), maxActions: 2, coverage: false } : {};
    const r = await check(ctrls, { ...c.options, ...big, ...small, properties: propertiesOf(c), runs: Number(runsArg), seed, ...(guided ? { search: 'guided' as const } : {}), ...(buggy ? { shrink: false } : {}) } as never);
    const ms = Math.round(performance.now() - t0);
    const cu = process.cpuUsage(c0);
    const cpu = Math.round((cu.user + cu.system) / 1000);
    const tag = `${c.name}${buggy ? ' (buggy)' : ''} seed ${seed}${guided ? ' guided' : ''}${flags.includes('big') ? ' big' : ''}${gate ? ' gate' : ''}`;
    if (r.ok) console.log(`PASS ${tag} runs ${r.runs} wall ${ms} ms cpu ${cpu} ms`);
    else {
      console.log(`FAIL ${tag} at run ${r.failedAtRun}: ${r.property}: ${r.summary} (wall ${ms} ms cpu ${cpu} ms)`);
      if (!buggy || flags.includes('verbose')) {
        console.log(r.explanation.slice(0, 5000), '\nSCENARIO', JSON.stringify(r.scenario).slice(0, 4000));
      }
    }
  }
}
