import { check, faults } from '../../src/index.js';
import { plain, stamped, checkOptions } from './hostile/mask-poison.js';
for (const c of [plain, stamped]) {
  const r = await check([c], { ...checkOptions, runs: 100, seed: 1, faults: [faults.drift], swarm: false } as never);
  console.log(c.name, r.ok ? 'PASS' : `FAIL at run ${r.failedAtRun} ${r.property}: ${r.summary}`);
}
