import { check } from '../src/check.js';
import { properties } from '../properties/index.js';
import { buggyWebAppController } from '../examples/client-node/steadystate.js';
const t0 = performance.now();
const result = await check(buggyWebAppController, { runs: 3, seed: 1, faults: [], faultWindowMs: 500, settleMs: 3500, tailMs: 1000, determinism: false, properties: [properties.convergence(), properties.noHotLoop({ quietAfterMs: 500 })], shrink: { maxSteps: 10, maxMinimizeTests: 4 } , onProgress: (p) => process.stderr.write(`\r${p.phase} ${p.runs}/${p.total} ${Math.round(performance.now() - t0)}ms   `)});
console.log('\n', Math.round(performance.now() - t0), JSON.stringify(result).slice(0, 3000));
process.exit(0);
