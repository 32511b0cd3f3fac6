// npx tsx scratch/rt48/hostile/run-env-detect.ts : the env-detect program through the library (check, 5 runs)
import { check, defineProgram } from '../../../src/index.js';
const p = defineProgram({ entry: 'scratch/rt48/hostile/bisect-d.mjs', for: 'ConfigMap', name: 'env-detect', sample: [{}] });
const r = await check(p, { runs: 5, seed: 1 });
console.log(r.ok ? 'PASS' : `FAIL ${r.property}: ${r.summary.slice(0, 300)}`);
