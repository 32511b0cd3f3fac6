// Simulates the CommonJS fixture in a process of its own, where it is the first program ever loaded
// (its library's first evaluation happens in the first run), then runs the determinism self-check
// on that first run (the same scenario again, the second run in the process). Prints the
// program's writes in the first run (key@schedule) and the self-check's verdict.
import { fileURLToPath } from 'node:url';
import { defineProgram, simulate, type RunRecord, type Scenario } from '../../../../src/index.js';
import { checkDeterminism } from '../../../../src/harness/determinism.js';

const p = defineProgram({ entry: fileURLToPath(new URL('./cjs-first-load/operator.js', import.meta.url)), for: 'ConfigMap', name: 'op' });
const simulateOp = async (scenario: Scenario): Promise<RunRecord> => (await simulate(scenario, { controllers: [p], tailMs: 0 })).run;
const first = await simulateOp({ seed: 7, controllers: [{ name: 'op' }], initialObjects: [], workload: [], faults: { events: [], background: [] }, options: { faultWindowMs: 2_000, settleMs: 1_500 } });
const writes = first.trace.filter((e) => e.type === 'store:write').map((e) => `${String(e['key'])}@${String(e['timer'])}`);
const report = await checkDeterminism(first, simulateOp);
console.log(writes.join(' '));
console.log(report.ok ? 'deterministic' : `not deterministic: ${JSON.stringify(report.divergence)}`);
