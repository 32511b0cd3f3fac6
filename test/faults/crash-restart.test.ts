import { describe, expect, it } from 'vitest';
import { judgeSingleChild, singleChildScenario } from '../../examples/fault-targets/single-child/app.js';
import { singleChildBuggy } from '../../examples/fault-targets/single-child/buggy.js';
import { singleChildCorrect } from '../../examples/fault-targets/single-child/correct.js';
import { crashRestart } from '../../faults/crash-restart.js';
import { faultLaws, runCase, type FaultLawCase } from '../helpers/fault-laws.js';
import { leakedBucket } from '../../examples/multi-fault/index.js';
import { judge, withFaults } from '../../examples/multi-fault/judge.js';

const lawCase: FaultLawCase = {
  fault: crashRestart,
  label: 'create-then-record with generated names vs deterministic names',
  scenario: singleChildScenario,
  buggy: singleChildBuggy,
  correct: singleChildCorrect,
  judge: judgeSingleChild,
  // dies right after creating web's Pod, before recording it: the restart creates another
  breaking: { events: [{ kind: 'crash-restart', nth: 0, params: { point: 'after-write' } }], background: [] },
  gen: { controllers: ['x'], kinds: ['App'], keys: ['default/web', 'default/api'], faultWindowMs: 10_000, maxNth: 6 },
  minimalEvent: { kind: 'crash-restart', nth: 0, params: { point: 'after-write' } },
  search: { numRuns: 100, shrinksTo: 1 },
};

faultLaws(lawCase);

describe('crash-restart', () => {
  it('the restarted replica starts with fresh informers after restartDelayMs', async () => {
    const run = await runCase(lawCase, singleChildCorrect, lawCase.breaking);
    const crash = run.trace.find((e) => e.type === 'controller:crash')!;
    const restart = run.trace.filter((e) => e.type === 'controller:start')[1]!;
    expect(restart.t - crash.t).toBe(1000);
    expect(run.trace.some((e) => e.type === 'informer:list' && e.t === restart.t)).toBe(true);
  });

  it('a timed crash kills the controller wherever it is', async () => {
    const run = await runCase(lawCase, singleChildCorrect, { events: [{ kind: 'crash-restart', at: 150 }], background: [] });
    expect(run.trace.filter((e) => e.type === 'controller:crash').map((e) => e.t)).toEqual([150]);
    expect(judgeSingleChild(run)).toBe(true);
  });

  it('the systematic sweep "crash after the k-th write" finds exactly the first write of each pair', async () => {
    const broken: number[] = [];
    for (let k = 0; k < 4; k++) {
      const run = await runCase(lawCase, singleChildBuggy, { events: [{ kind: 'crash-restart', nth: k, params: { point: 'after-write' } }], background: [] });
      if (judgeSingleChild(run) !== true) broken.push(k);
    }
    expect(broken).toEqual([0, 2]);
  });
});

describe('crash-restart around downstream requests', () => {
  const bucket = (point: string, nth: number) => withFaults(leakedBucket, [{ kind: 'crash-restart', nth, target: 'bucket', params: { point } }]);

  it('"after-fetch" dies once the nth request of the controller has answered, before it acts on the answer', async () => {
    const { run } = await judge(leakedBucket, 'buggy', bucket('after-fetch', 0));
    const post = run.trace.find((e) => e.type === 'downstream:request' && e['method'] === 'POST')!;
    const crash = run.trace.find((e) => e.type === 'controller:crash')!;
    expect(post['status']).toBe(201);
    expect(crash.t).toBe(post.t);
    expect(crash['reason']).toBe('after fetch POST https://storage.example/v1/buckets');
    // the id was never recorded by the first incarnation; the restarted one records it
    const recorded = run.trace.filter((e) => e.type === 'store:write' && e['verb'] === 'patchStatus');
    expect(recorded.every((e) => e.t > crash.t)).toBe(true);
  });

  it('"before-fetch" dies before the request leaves, so the service never sees it', async () => {
    const { run } = await judge(leakedBucket, 'buggy', bucket('before-fetch', 0));
    const crash = run.trace.find((e) => e.type === 'controller:crash')!;
    expect(crash['reason']).toBe('before fetch POST https://storage.example/v1/buckets');
    const posts = run.trace.filter((e) => e.type === 'downstream:request' && e['method'] === 'POST');
    expect(posts.every((e) => e.t > crash.t)).toBe(true);
    expect(run.trace.filter((e) => e.type === 'fault:inject')).toHaveLength(1);
  });

  it('counts requests per controller, and leaves client calls and writes to the other points', async () => {
    const { run } = await judge(leakedBucket, 'buggy', bucket('after-fetch', 1));
    const requests = run.trace.filter((e) => e.type === 'downstream:request');
    const crash = run.trace.find((e) => e.type === 'controller:crash')!;
    expect(crash.t).toBe(requests[1]!.t);
    const { run: plain } = await judge(leakedBucket, 'buggy', bucket('before-call', 3));
    expect(plain.trace.find((e) => e.type === 'controller:crash')!['reason']).toBe('before patchStatus');
  });
});
