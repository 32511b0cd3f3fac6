import { describe, expect, it } from 'vitest';
import '../../src/vitest/index.js';
import { check } from '../../src/check.js';
import { defineController } from '../../src/runtime/define-controller.js';
import { withArticle } from '../../src/report/explain.js';
import { eventLoss } from '../../faults/index.js';
import { convergence } from '../../properties/convergence.js';
import { edgeTriggered } from '../../examples/replicas/edge-triggered.js';
import { levelTriggered } from '../../examples/replicas/level-triggered.js';
import { failureOf } from '../helpers/failure-of.js';

/** A newcomer's path without walls (issue 15): hints where the verdict alone would not say why, and a pass that says what it covered. */

const objects = { kind: 'ReplicaSet', spec: [{ replicas: 3 }], status: { replicas: 0 } };

describe('a resync period longer than the settle phase', () => {
  it('is named with the fix when the check fails', async () => {
    // the edge-triggered logic with controller-runtime's default resync (10 h): one lost event and it never catches up
    const c = defineController({ name: 'default-resync', for: 'ReplicaSet', reconcile: edgeTriggered.reconcile });
    const message = await failureOf(expect(c).toPassCheck({ objects, faults: [eventLoss], properties: [convergence()], runs: 30, seed: 1, reportDir: false }));
    expect(message).toMatch(/Note: default-resync resyncs every 10 h \(the default, controller-runtime's SyncPeriod\), longer than the settle phase \(30 s\), so within a check a missed event is repaired only by a requeue or the next change\. If default-resync relies on its resync to catch up \(level-triggered by resync\), set resyncPeriodMs below settleMs, e\.g\. defineController\(\{ \.\.\., resyncPeriodMs: 10000 \}\)\./);
  });

  it('says nothing when the resync comes around within the settle phase', async () => {
    const r = await check(edgeTriggered, { objects, faults: [eventLoss], properties: [convergence()], runs: 30, seed: 1 });
    expect(r.ok).toBe(false);
    const c = defineController({ name: 'fast-resync', for: 'ReplicaSet', resyncPeriodMs: 5_000, reconcile: edgeTriggered.reconcile });
    const r2 = await check(c, { objects, faults: [eventLoss], properties: [convergence()], runs: 30, seed: 1 });
    expect(r2.warnings).toBeUndefined();
  });
});

describe('verbose', () => {
  it('prints fault coverage and latency on a pass, like the CLI; nothing without it', async () => {
    const lines: string[] = [];
    await expect(levelTriggered).toPassCheck({ objects, faults: [eventLoss], properties: [convergence()], runs: 20, seed: 1, reportDir: false, verbose: 1, log: (l) => lines.push(l) });
    expect(lines[0]).toMatch(/^steadystate: level-triggered passes: 20 runs, seed 1; every property held: convergence$/);
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}fault event-loss: fired \d+× in \d+ runs where enabled; changed behaviour in \d+$/));
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}convergence latency p50 \d+ ms, p90 \d+ ms, p99 \d+ ms$/));
    const quiet: string[] = [];
    await expect(levelTriggered).toPassCheck({ objects, faults: [eventLoss], properties: [convergence()], runs: 5, seed: 1, reportDir: false, log: (l) => quiet.push(l) });
    expect(quiet).toEqual([]);
  });

  it('2 says what each property judged; a bad level is named', async () => {
    const lines: string[] = [];
    await check(levelTriggered, { objects, faults: [eventLoss], properties: [convergence()], runs: 5, seed: 1, verbose: 2, log: (l) => lines.push(l) });
    expect(lines).toContainEqual('  property convergence: judged 5 runs');
    // @ts-expect-error verbose is 0, 1 or 2
    await expect(check(levelTriggered, { verbose: 3 })).rejects.toThrow(/options\.verbose must be 0, 1 or 2/);
  });
});

describe('words', () => {
  it('"an update", "a read"', () => {
    expect(withArticle('update')).toBe('an update');
    expect(withArticle('read')).toBe('a read');
  });
});
