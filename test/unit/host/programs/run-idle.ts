// Simulates the empty program in a process of its own, where nothing but the simulation may keep the
// event loop alive (in a vitest worker the worker's own channel does): prints the program-acts verdict.
// The load hold's bounds are the defaults: the hold of a program the host shows nothing going on
// for ends without them.
import { defineProgram, simulate } from '../../../../src/index.js';
import { programActs } from '../../../../src/harness/run-guards.js';

const idle = defineProgram({ entry: 'test/unit/host/programs/idle.mjs', for: 'ConfigMap', name: 'idle' });
const { run } = await simulate(
  {
    seed: 1,
    controllers: [{ name: 'idle' }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: { kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' }, data: {} } }],
    faults: { events: [], background: [] },
    options: { faultWindowMs: 1_000, settleMs: 1_000 },
  },
  { controllers: [idle], tailMs: 0 },
);
const v = programActs.judge(run, undefined);
console.log(v.ok ? 'PASS' : `FAIL ${v.summary}`);
