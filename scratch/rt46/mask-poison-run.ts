import { check } from '../../src/index.js';
import { plain, stamped, checkOptions } from './hostile/mask-poison.js';
for (const seed of [1, 2]) for (const c of [plain, stamped]) {
  const r = await check([c], { ...checkOptions, runs: Number(process.argv[2] ?? 200), seed });
  console.log(c.name, 'seed', seed, r.ok ? 'PASS' : `FAIL at run ${r.failedAtRun} ${r.property}: ${r.summary}`);
}
