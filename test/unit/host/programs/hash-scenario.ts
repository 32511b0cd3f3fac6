/** One scenario of the timer program (two replicas, HTTP-layer faults), for the determinism checks. */
import { fileURLToPath } from 'node:url';
import { defineProgram, simulate, type SimulationResult } from '../../../../src/index.js';

export function runOnce(): Promise<SimulationResult> {
  const p = defineProgram({ entry: fileURLToPath(new URL('./timer.ts', import.meta.url)), for: 'ConfigMap', name: 'p' });
  return simulate(
    {
      seed: 11,
      controllers: [{ name: 'p', replicas: 2 }],
      initialObjects: [],
      workload: [],
      faults: { events: [], background: [{ kind: 'api-error', rate: 0.3 }, { kind: 'watch-disconnect', rate: 0.3 }, { kind: 'crash-restart', rate: 0.1 }] },
      options: { faultWindowMs: 5_000, settleMs: 5_000 },
    },
    { controllers: [p], tailMs: 0 },
  );
}
