import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseCommandLine, type CheckCommandOptions } from '../../../src/cli/options.js';
import { programController } from '../../../src/cli/program-controller.js';
import { programSpecOf } from '../../../src/cli/program-target.js';
import { simulate } from '../../../src/index.js';

const restarts = fileURLToPath(new URL('./programs/restarts.ts', import.meta.url));
const checkOptions = (...argv: string[]): CheckCommandOptions => {
  const parsed = parseCommandLine(['check', ...argv]);
  if (parsed.command !== 'check') throw new Error(`parsed as ${parsed.command}`);
  return parsed.options;
};

/** `--restart-backoff MS[:MAX_MS]`: a program's CrashLoopBackOff from the command line (and in its reproduction's spec). */
describe('steadystate check --program … --restart-backoff', () => {
  it('restarts the program after the given delay, doubling up to the maximum', async () => {
    const spec = programSpecOf(checkOptions('--program', restarts, '--for', 'ConfigMap', '--name', 'p', '--env', 'EXIT_HOW=exit', '--restart-backoff', '1000:3000'), process.cwd())!;
    expect(spec.restartBackoff).toEqual({ initialMs: 1_000, maxMs: 3_000 });
    const scenario = { seed: 3, controllers: [{ name: 'p' }], initialObjects: [], workload: [], faults: { events: [], background: [] }, options: { faultWindowMs: 6_000, settleMs: 5_000 } };
    const { run } = await simulate(scenario, { controllers: [programController(spec, process.cwd())], tailMs: 0 });
    expect(run.trace.filter((e) => e.type === 'process:exit').slice(0, 4).map((e) => e['restartInMs'])).toEqual([1_000, 2_000, 3_000, 3_000]);
  });

  it('is a usage error when malformed, when the maximum is below the first delay, or without --program', () => {
    expect(checkOptions('--program', restarts, '--for', 'ConfigMap', '--restart-backoff', '500').restartBackoff).toEqual({ initialMs: 500, maxMs: 300_000 });
    expect(() => checkOptions('--program', restarts, '--for', 'ConfigMap', '--restart-backoff', '10s')).toThrow(/--restart-backoff expects MS or MS:MAX_MS, .*got "10s", e\.g\. --restart-backoff 1000:30000/);
    expect(() => checkOptions('--program', restarts, '--for', 'ConfigMap', '--restart-backoff', '5000:1000')).toThrow(/MAX_MS ≥ MS/);
    expect(() => programSpecOf(checkOptions('x.ts', '--restart-backoff', '1000'), process.cwd())).toThrow(/--restart-backoff goes with --program FILE/);
  });
});
