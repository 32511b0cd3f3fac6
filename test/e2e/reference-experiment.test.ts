import { describe, expect, it } from 'vitest';
import { formatRow, runReferenceExperiment } from '../../examples/replicas/experiment.js';

describe('reference experiment (SPEC §9)', () => {
  it('level-triggered converges in every trial; edge-triggered near 0.7³ (binomial range)', async () => {
    const [level, edge] = await runReferenceExperiment({ trials: 2000 });
    expect(level!.converged).toBe(2000);
    expect(edge!.converged).toBeGreaterThanOrEqual(640);
    expect(edge!.converged).toBeLessThanOrEqual(730);
    expect(formatRow(level!)).toMatch(/^level-triggered: converged 2000\/2000 \(100\.0%\), mean \d+\.\d\d ticks, mean \d+\.\d\d actions$/);
    expect(formatRow(edge!)).toMatch(/^edge-triggered: converged \d+\/2000 \(\d+\.\d%\), mean \d+\.\d\d ticks, mean \d+\.\d\d actions$/);
  });

  it('is a pure function of its seed', async () => {
    const a = await runReferenceExperiment({ trials: 200, seed: 7 });
    const b = await runReferenceExperiment({ trials: 200, seed: 7 });
    const c = await runReferenceExperiment({ trials: 200, seed: 8 });
    expect(b).toEqual(a);
    expect(c[1]!.converged).not.toBe(-1);
    expect(JSON.stringify(c)).not.toEqual(JSON.stringify(a));
  });
});
