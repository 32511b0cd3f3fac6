// npx tsx scratch/rt48/cjs-leak.ts : does a CommonJS program's ES-module dependency keep its state across runs (and incarnations)?
import { defineProgram, simulate, type Scenario } from '../../src/index.js';
const program = defineProgram({ entry: 'scratch/rt48/programs/cjs-leak/program.cjs', for: 'ConfigMap', name: 'leak' });
const s = { seed: 0, controllers: [{ name: 'leak' }], initialObjects: [], workload: [], faults: { events: [], background: [] } } as unknown as Scenario;
for (let i = 1; i <= 3; i++) {
  const { run } = await simulate(s, { controllers: [program] } as never);
  console.log(`run ${i}: ConfigMaps`, run.finalObjects.filter((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('incarnation')).map((o) => o.metadata.name).join(', '));
}
