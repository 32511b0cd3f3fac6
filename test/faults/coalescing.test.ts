import { describe, expect, it } from 'vitest';
import { BATCH, TASK, batchScenario, judgeBatch, taskRunner } from '../../examples/fault-targets/coalescing/batch.js';
import { batchBuggy } from '../../examples/fault-targets/coalescing/buggy.js';
import { batchCorrect } from '../../examples/fault-targets/coalescing/correct.js';
import { coalescing } from '../../faults/coalescing.js';
import { defineController } from '../../src/index.js';
import { faultLaws, runCase, type FaultLawCase } from '../helpers/fault-laws.js';

const lawCase: FaultLawCase = {
  fault: coalescing,
  label: 'counting transitions vs counting current state',
  scenario: batchScenario,
  buggy: batchBuggy,
  correct: batchCorrect,
  judge: judgeBatch,
  // the Task stream falls behind from the first Running event until after all tasks finished:
  // the relist shows them Succeeded, never Running
  breaking: { events: [{ kind: 'coalescing', nth: 6, params: { ms: 500 } }], background: [] },
  gen: { controllers: ['x'], kinds: [BATCH], keys: ['default/nightly'], faultWindowMs: 10_000, maxNth: 14 },
  minimalEvent: { kind: 'coalescing', nth: 0, params: { ms: 0 } },
  options: { environment: [taskRunner] },
  search: { numRuns: 150, shrinksTo: 1 },
};

faultLaws(lawCase);

describe('coalescing', () => {
  it('skips the intermediate versions: the cache jumps from Pending to Succeeded at the relist', async () => {
    const run = await runCase(lawCase, batchBuggy, lawCase.breaking);
    const tasks = run.trace.filter((e) => e.type === 'watch:event' && e['kind'] === TASK && e['decision'] === 'deliver').map((e) => e['rv']);
    expect(tasks).toEqual([7, 8, 9]); // the ADDEDs (the cluster's four Namespaces hold versions 1–4); Running (11–13) and Succeeded (15–17) never came by watch
    const relist = run.trace.find((e) => e.type === 'informer:relist' && e['kind'] === TASK)!;
    expect(relist.t).toBe(1000);
  });

  it('a deletion during the gap arrives as a tombstone from the relist', async () => {
    const counts: string[] = [];
    const observer = defineController({
      name: 'observer',
      for: BATCH,
      watches: [{ kind: TASK, map: () => ['default/nightly'] }],
      async reconcile(ctx) {
        counts.push(`${ctx.clock.now()}:${(await ctx.client.list(TASK)).length}`);
      },
    });
    const withDelete = (controller: string, faults: Parameters<typeof batchScenario>[1]) => {
      const base = batchScenario(controller, faults);
      return { ...base, workload: [...base.workload, { at: 400, type: 'delete' as const, kind: TASK, key: 'default/load' }] };
    };
    // watch delivery 4 is load's DELETED: the stream goes quiet right there
    const run = await runCase({ ...lawCase, scenario: withDelete }, observer, { events: [{ kind: 'coalescing', nth: 4, params: { ms: 500 } }], background: [] });
    expect(run.trace.some((e) => e.type === 'watch:event' && e['event'] === 'DELETED' && e['decision'] === 'deliver')).toBe(false);
    expect(run.trace.find((e) => e.type === 'informer:relist' && e['kind'] === TASK)).toMatchObject({ t: 900, count: 2 });
    expect(run.trace.find((e) => e.type === 'informer:notify' && e['event'] === 'DELETED')).toMatchObject({ t: 900, kind: TASK });
    expect(counts.filter((c) => c.startsWith('900:'))).toEqual(['900:2']);
  });

});
