import { describe, expect, it } from 'vitest';
import { formatRow, runReferenceExperiment, survivorBiasLine } from '../../examples/replicas/experiment.js';

describe('reference experiment (SPEC §9)', () => {
  it('level-triggered converges in every trial in 3 ticks; edge-triggered near 0.7³ (binomial range), mean about 1 tick over all trials (survivor bias)', async () => {
    const [level, edge] = await runReferenceExperiment({ trials: 2000 });
    expect(level!.converged).toBe(2000);
    expect(edge!.converged).toBeGreaterThanOrEqual(640);
    expect(edge!.converged).toBeLessThanOrEqual(730);
    expect(formatRow(level!)).toMatch(/^level-triggered: converged 2000\/2000 \(100\.0%\), mean \d+\.\d\d ticks, mean \d+\.\d\d actions$/);
    expect(formatRow(edge!)).toMatch(/^edge-triggered: converged \d+\/2000 \(\d+\.\d%\), mean \d+\.\d\d ticks, mean \d+\.\d\d actions$/);
    // the figures the way the seed takes them: one event per tick, means over all trials
    // level: 3 ticks and 3 actions, a lost event costs it nothing
    expect(formatRow(level!)).toContain('mean 3.00 ticks, mean 3.00 actions');
    // edge: its converging trials take 3 ticks too; over all trials (non-converging count 0) about 1
    expect(edge!.meanTicksConverged).toBe(3);
    expect(edge!.meanTicks).toBeCloseTo((3 * edge!.converged) / 2000, 10);
    expect(edge!.meanTicks).toBeGreaterThan(0.9);
    expect(edge!.meanTicks).toBeLessThan(1.15);
    expect(edge!.meanActions).toBeGreaterThan(1.4);
    expect(edge!.meanActions).toBeLessThan(1.7);
    expect(survivorBiasLine(edge!)).toMatch(/^survivor bias: the edge-triggered trials that converge take 3\.00 ticks, as the level-triggered ones do; the other \d+\.\d% never converge and count 0, so its mean over all trials \(1\.\d\d\) looks faster, but is not\.$/);
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
