// npx tsx scratch/rt/program-sim.ts <scenario.json> : the svc-ssa correct program on one scenario; its watch events and requests
import { readFileSync } from 'node:fs';
import { defineProgram, simulate, type Scenario } from '../../src/index.js';
const s = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Scenario;
const program = defineProgram({ entry: 'scratch/rt/programs/svc-ssa/correct.ts', for: 'Exposure', name: 'exposure-operator', resources: [{ kind: 'Exposure', plural: 'exposures', group: 'example.com', version: 'v1', namespaced: true }], sample: [{ app: 'web', port: 80, targetPort: 8080, type: 'ClusterIP' }] });
const { run } = await simulate(s, { controllers: [program] } as never);
for (const e of run.trace as unknown as Record<string, unknown>[]) {
  if (e['type'] === 'watch:event' || e['type'] === 'http:request' || e['type'] === 'watch:close' || e['type'] === 'fault') console.log(String(e['t']).padStart(6), e['type'], e['method'] ?? e['event'] ?? '', e['path'] ?? e['key'] ?? '', e['status'] ?? e['decision'] ?? e['how'] ?? '', e['fault'] ?? e['kind'] ?? '');
}
