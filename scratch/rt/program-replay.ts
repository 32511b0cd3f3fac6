// npx tsx scratch/rt/program-replay.ts <scenario.json> : the svc-ssa correct program on a saved scenario, judged by check
import { readFileSync } from 'node:fs';
import { check, defineProgram, type Scenario } from '../../src/index.js';
const s = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Scenario;
const program = defineProgram({ entry: 'scratch/rt/programs/svc-ssa/correct.ts', for: 'Exposure', name: 'exposure-operator', resources: [{ kind: 'Exposure', plural: 'exposures', group: 'example.com', version: 'v1', namespaced: true }], sample: [{ app: 'web', port: 80, targetPort: 8080, type: 'ClusterIP' }, { app: 'web', port: 80, targetPort: 8080, type: 'NodePort' }] });
const r = await check(program, { corpus: { scenarios: [s] }, runs: 1, seed: 1, shrink: false });
console.log(r.ok ? 'PASS' : `FAIL ${r.property}: ${r.summary}`);
