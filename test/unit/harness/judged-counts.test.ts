import { describe, expect, it } from 'vitest';
import { check } from '../../../src/harness/check.js';
import { checkSystematic } from '../../../src/harness/systematic.js';
import type { CheckPassed, CheckResult } from '../../../src/harness/check-result.js';
import { defineProperty, nothingToJudge, unjudgedReason, type Verdict } from '../../../src/harness/property.js';
import { mergeCheckResults } from '../../../src/cli/merge-results.js';
import { heldText, judgedLine, judgedNothing, passSummary } from '../../../src/report/pass-summary.js';
import { markdown } from '../../../src/report/markdown.js';
import { html } from '../../../src/report/html.js';
import { loadChartAssets } from '../../../src/report/chart-assets.js';
import { toReportModel } from '../../../src/report/result.js';
import { eventLoss } from '../../../faults/index.js';
import { convergence } from '../../../properties/convergence.js';
import { recovery } from '../../../properties/recovery.js';
import { levelTriggered } from '../../../examples/replicas/level-triggered.js';

/**
 * A pass says what it judged (red team N7b): a verdict may say there was nothing in the run to
 * judge, a check counts per property the runs it judged and those it could not, and a pass in
 * which no property judged any run is recognised as saying nothing.
 */

const objects = { kind: 'ReplicaSet', spec: [{ replicas: 3 }, { replicas: 1 }], status: { replicas: 0 } };

describe('a verdict that judged nothing', () => {
  it('is typed: judged false with why; unjudgedReason reads it, and the older stats.judged false too', () => {
    const v = nothingToJudge('the workload deletes nothing', { deletions: 0 });
    expect(v).toEqual({ ok: true, judged: false, why: 'the workload deletes nothing', stats: { deletions: 0 } });
    expect(unjudgedReason(v)).toEqual({ why: 'the workload deletes nothing' });
    expect(nothingToJudge('x')).toEqual({ ok: true, judged: false, why: 'x' });
    // the convention before it was typed (a user's property may still return it)
    expect(unjudgedReason({ ok: true, stats: { judged: false, reason: 'old words' } })).toEqual({ why: 'old words' });
    expect(unjudgedReason({ ok: true, stats: { judged: false } })).toEqual({ why: undefined });
    // judged: a plain pass, a pass that says so, a failure
    expect(unjudgedReason({ ok: true })).toBeUndefined();
    expect(unjudgedReason({ ok: true, judged: true, stats: { judged: true } })).toBeUndefined();
    expect(unjudgedReason({ ok: false, summary: 's', explanation: 'e', evidence: {} })).toBeUndefined();
    // @ts-expect-error a verdict that judged nothing must say why
    const bad: Verdict = { ok: true, judged: false };
    expect(bad.ok).toBe(true);
  });
});

/** A property that judges only runs whose workload changes a spec (an update or a patch), counting its own verdicts. */
function changesOnly() {
  const seen = { judged: 0, unjudged: 0 };
  const factory = defineProperty<Record<string, never>>({
    name: 'changes-only',
    description: 'test: judges runs with a spec change',
    defaults: {},
    judge: (run) => {
      if (!run.scenario.workload.some((a) => a.type === 'update' || a.type === 'patch')) {
        seen.unjudged++;
        return nothingToJudge('the workload changes no spec');
      }
      seen.judged++;
      return { ok: true };
    },
  });
  return { property: factory(), seen };
}

/** A property that never has anything to judge. */
const never = defineProperty<Record<string, never>>({ name: 'never-applies', description: 'test: judges nothing', defaults: {}, judge: () => nothingToJudge('nothing here is mine') });

describe('per property, a check counts the runs it judged and those it could not', () => {
  it('the counts are the verdicts of the runs the check made (corpus and generated), with the first reason', async () => {
    const { property, seen } = changesOnly();
    const r = await check(levelTriggered, { objects, faults: [eventLoss], properties: [convergence(), property, never()], runs: 20, seed: 4 });
    expect(r.ok).toBe(true);
    expect(seen.judged).toBeGreaterThan(0);
    expect(seen.unjudged).toBeGreaterThan(0);
    expect(r.propertyRuns).toEqual([
      expect.objectContaining({ name: 'convergence', judged: 20, unjudged: 0, reason: null }),
      expect.objectContaining({ name: 'changes-only', judged: seen.judged, unjudged: seen.unjudged, reason: 'the workload changes no spec' }),
      expect.objectContaining({ name: 'never-applies', judged: 0, unjudged: 20, reason: 'nothing here is mine' }),
    ]);
    expect(seen.judged + seen.unjudged).toBe(20);
    // one property judged runs: the pass says something, and notes the one that judged none
    expect(judgedNothing(r)).toBeUndefined();
    const lines = passSummary(r as CheckPassed);
    expect(lines).toContainEqual(`judged per property (runs judged / seen): convergence 20/20 runs, changes-only ${seen.judged}/20, never-applies 0/20`);
    expect(lines).toContainEqual('property never-applies: judged 0 of 20 runs (nothing here is mine): it says nothing here');
    expect(heldText(r)).toBe('every property held: convergence, changes-only; never-applies judged no run');
  });

  it('a check whose properties judged no run is recognised, in words naming each property and why', async () => {
    const r = await check(levelTriggered, { objects, faults: [eventLoss], properties: [recovery(), never()], runs: 6, seed: 1, maxActions: 0 });
    expect(r.ok).toBe(true);
    expect(r.propertyRuns?.map((p) => [p.name, p.judged, p.unjudged])).toEqual([
      ['recovery', 0, 6],
      ['never-applies', 0, 6],
    ]);
    expect(judgedNothing(r)).toBe('no selected property judged any of the 6 runs: recovery judged 0 of 6 (the workload reverts no spec); never-applies judged 0 of 6 (nothing here is mine)');
    expect(heldText(r)).toBe('no property judged any run: recovery, never-applies');
    // a result that does not count (made before it was counted) is not judged vacuous
    const { propertyRuns: _counted, ...older } = r;
    expect(judgedNothing(older)).toBeUndefined();
    expect(judgedLine(older)).toBeUndefined();
  });

  it('systematic mode counts its plans the same way', async () => {
    const { property, seen } = changesOnly();
    const r = await checkSystematic(levelTriggered, { objects, faults: [eventLoss], properties: [convergence(), property], depth: 1, maxPlans: 3 });
    expect(r.ok).toBe(true);
    expect(r.runs).toBeGreaterThan(2);
    expect(r.propertyRuns).toEqual([
      expect.objectContaining({ name: 'convergence', judged: r.runs, unjudged: 0 }),
      expect.objectContaining({ name: 'changes-only', judged: seen.judged, unjudged: seen.unjudged }),
    ]);
    // its base scenarios change a spec, and one creates two objects only
    expect(seen.judged).toBeGreaterThan(0);
    expect(seen.unjudged).toBeGreaterThan(0);
    expect(seen.judged + seen.unjudged).toBe(r.runs);
    expect(passSummary(r as CheckPassed)).toContainEqual(expect.stringMatching(/^judged per property \(plans judged \/ seen\): convergence \d+\/\d+ plans, changes-only \d+\/\d+$/));
  });
});

describe('merged slices (worker threads, shards) judged what their slices judged', () => {
  const slice = (runs: number, rows: NonNullable<CheckResult['propertyRuns']>, index: number): CheckPassed => ({
    ok: true,
    property: null,
    summary: null,
    explanation: null,
    scenario: null,
    path: null,
    controller: 'c',
    runs,
    seed: 1,
    properties: rows.map((p) => p.name),
    faults: [],
    coverage: [],
    stats: { convergenceLatencyMs: null, reconcilesPerObject: 1, storeWritesPerObject: 1, peakDownstreamQps: 0, reconciles: runs },
    corpusReplayed: 0,
    determinismChecked: 0,
    shard: { index, count: 2 },
    propertyRuns: rows,
    couldNotJudge: rows.filter((p) => p.unjudged > 0).map((p) => ({ property: p.name, runs: p.unjudged, reason: `could not judge ${index}` })),
  });

  it('sums judged and unjudged runs per property and keeps the first reason', () => {
    const a = slice(3, [{ name: 'p', judged: 3, unjudged: 0, reason: null, ms: 1.5 }, { name: 'q', judged: 0, unjudged: 3, reason: 'first', ms: 0.1 }], 0);
    const b = slice(2, [{ name: 'p', judged: 1, unjudged: 1, reason: 'later', ms: 2 }, { name: 'q', judged: 0, unjudged: 2, reason: 'second', ms: 0.2 }], 1);
    const m = mergeCheckResults([a, b], undefined);
    expect(m.propertyRuns).toEqual([
      { name: 'p', judged: 4, unjudged: 1, reason: 'later', ms: 3.5 },
      { name: 'q', judged: 0, unjudged: 5, reason: 'first', ms: 0.3 },
    ]);
    expect(m.couldNotJudge).toEqual([
      { property: 'q', runs: 5, reason: 'could not judge 0' },
      { property: 'p', runs: 1, reason: 'could not judge 1' },
    ]);
    expect(judgedNothing(m)).toBeUndefined();
    // slices that each judged nothing merge into a check that judged nothing
    const none = mergeCheckResults([slice(3, [{ name: 'q', judged: 0, unjudged: 3, reason: 'why', ms: 0 }], 0), slice(2, [{ name: 'q', judged: 0, unjudged: 2, reason: 'why', ms: 0 }], 1)], undefined);
    expect(judgedNothing(none)).toBe('no selected property judged any of the 5 runs: q judged 0 of 5 (why)');
  });
});

describe('the pass reports say what each property judged', () => {
  it('Markdown and HTML list the counts and note a property that judged no run', async () => {
    const { property } = changesOnly();
    const r = await check(levelTriggered, { objects, faults: [eventLoss], properties: [convergence(), property, never()], runs: 5, seed: 4 });
    const model = toReportModel(r);
    const md = markdown(model);
    expect(md).toMatch(/every property held: `convergence`, `changes-only`, `never-applies` \(`never-applies` judged no run: nothing in the runs was theirs to judge\)\./);
    expect(md).toContain('## What each property judged');
    expect(md).toContain('> **Note:** `never-applies` judged 0 of 5 runs (nothing here is mine): it says nothing about this controller here.');
    expect(md).toContain('| convergence | 5 | 0 |  |');
    expect(md).toContain('| never-applies | 0 | 5 | nothing here is mine |');
    const page = html(model, loadChartAssets());
    expect(page).toContain('<section id="judged"><h2>What each property judged</h2>');
    expect(page).toContain('<tr><td>never-applies</td><td>0</td><td>5</td><td>nothing here is mine</td></tr>');
  });
});
