import { runReferenceExperiment } from '../examples/replicas/experiment.js';
import { REPLICAS_KIND, step } from '../examples/replicas/replicas.js';
import type { BenchRow } from './types.js';

/**
 * A bare loop doing the experiment's arithmetic with no store, informer or queue: the same
 * per-trial decisions (30% loss per notification, one step per delivered trigger).
 */
function bareLoop(trials: number, seed: number): number {
  let s = seed >>> 0;
  const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  let converged = 0;
  for (let i = 0; i < trials * 2; i++) {
    let actual = 0;
    const level = i < trials;
    for (let tick = 0; tick < 60 && actual !== 3; tick++) {
      if (level || rnd() >= 0.3) actual = step(actual, 3);
      else break;
    }
    if (actual === 3) converged++;
  }
  return converged + REPLICAS_KIND.length * 0;
}

/** The reference experiment, 2 × 2,000 trials, and its ratio to a bare loop. */
export async function benchReferenceExperiment(): Promise<BenchRow[]> {
  await runReferenceExperiment({ trials: 100 });
  const t0 = performance.now();
  await runReferenceExperiment({ trials: 2000 });
  const full = performance.now() - t0;
  const t1 = performance.now();
  let sink = 0;
  for (let r = 0; r < 50; r++) sink += bareLoop(2000, r + 1);
  const bare = (performance.now() - t1) / 50;
  if (sink < 0) console.log(sink);
  return [
    { name: 'reference experiment, 2 × 2,000 trials', value: full, unit: 'ms', target: '≤ 1,000 ms (floor 2,000)' },
    { name: 'reference experiment / bare loop', value: full / bare, unit: '×' },
  ];
}
