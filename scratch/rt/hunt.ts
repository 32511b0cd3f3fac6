// npx tsx scratch/rt46/hunt.ts <case|all> <runs> <seeds e.g. 1,2> [guided] [buggy]
import { check } from '../../src/index.js';
import { cases } from './fixtures/controllers.js';

const [which = 'all', runsArg = '300', seedsArg = '1', ...flags] = process.argv.slice(2);
const guided = flags.includes('guided');
const buggy = flags.includes('buggy');
// big: bigger worlds than the defaults (more objects and actions per run)
const big = flags.includes('big') ? { maxObjects: 4, maxActions: 8 } : {};
for (const c of cases.filter((x) => which === 'all' || which.split(',').includes(x.name))) {
  for (const seed of seedsArg.split(',').map(Number)) {
    const ctrls = buggy ? c.buggy ?? [] : c.controllers;
    if (ctrls.length === 0) continue;
    const t0 = performance.now();
    const r = await check(ctrls, { ...c.options, ...big, runs: Number(runsArg), seed, ...(guided ? { search: 'guided' as const } : {}) } as never);
    const ms = Math.round(performance.now() - t0);
    const tag = `${c.name}${buggy ? ' (buggy)' : ''} seed ${seed}${guided ? ' guided' : ''}${flags.includes('big') ? ' big' : ''}`;
    if (r.ok) console.log(`PASS ${tag} runs ${runsArg} ${ms} ms`);
    else {
      console.log(`FAIL ${tag} at run ${r.failedAtRun}: ${r.property}: ${r.summary} (${ms} ms)`);
      if (!buggy || flags.includes('verbose')) console.log(r.explanation.slice(0, 4000), '\nSCENARIO', JSON.stringify(r.scenario).slice(0, 3000));
    }
  }
}
