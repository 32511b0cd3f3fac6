import { describe, expect, it } from 'vitest';
import { simulate } from '../../../src/harness/simulate.js';
import type { Scenario } from '../../../src/harness/scenario.js';
import type { ControllerProcess } from '../../../src/runtime/controller-process.js';
import { defineController } from '../../../src/runtime/define-controller.js';

/** A definition with its own process: the runtime starts, crashes, restarts, relists and stops it. */
describe('defineController({ process })', () => {
  function recorder(crashAt?: number) {
    const log: string[] = [];
    const process: ControllerProcess = {
      start(env, replica) {
        log.push(`start ${replica.actor} t=${env.kernel.now()}`);
        if (crashAt !== undefined && env.kernel.now() < crashAt) env.kernel.at(crashAt, () => replica.crash('test'));
        return {
          stop: (reason) => log.push(`stop ${replica.actor} ${reason} t=${env.kernel.now()}`),
          relist: () => log.push(`relist ${replica.actor} t=${env.kernel.now()}`),
        };
      },
    };
    return { log, process };
  }
  const scenario = (replicas = 1): Scenario => ({
    seed: 1,
    controllers: [{ name: 'p', replicas }],
    initialObjects: [{ kind: 'Thing', metadata: { name: 'a', namespace: 'default' } }],
    workload: [],
    faults: { events: [], background: [] },
    options: { faultWindowMs: 1000, settleMs: 1000, restartDelayMs: 200 },
  });

  it('starts the process once per replica instead of informers and workers, relists it at settle, stops it at the end', async () => {
    const { log, process } = recorder();
    let reconciles = 0;
    const def = defineController({ name: 'p', for: 'Thing', process, reconcile: () => void reconciles++ });
    const { run } = await simulate(scenario(2), { controllers: [def], tailMs: 500 });
    expect(log).toEqual(['start controller:p/0 t=0', 'start controller:p/1 t=0', 'relist controller:p/0 t=1000', 'relist controller:p/1 t=1000', 'stop controller:p/0 shutdown t=2500', 'stop controller:p/1 shutdown t=2500']);
    expect(reconciles).toBe(0);
    expect(run.trace.some((e) => e.type === 'informer:list' || e.type === 'reconcile:start')).toBe(false);
  });

  it('a crash stops the incarnation (crash) and the manager starts a fresh one after the restart delay', async () => {
    const { log, process } = recorder(300);
    const def = defineController({ name: 'p', for: 'Thing', process, reconcile: () => undefined });
    const { run } = await simulate(scenario(), { controllers: [def], tailMs: 0 });
    expect(log).toEqual(['start controller:p/0 t=0', 'stop controller:p/0 crash t=300', 'start controller:p/0 t=500', 'relist controller:p/0 t=1000', 'stop controller:p/0 shutdown t=2000']);
    expect(run.trace.filter((e) => e.type === 'controller:crash')).toHaveLength(1);
  });

  it('rejects a process without start', () => {
    expect(() => defineController({ name: 'p', for: 'Thing', process: {} as ControllerProcess, reconcile: () => undefined })).toThrow(/"process" must be an object with start/);
  });
});
