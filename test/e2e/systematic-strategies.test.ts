import { describe, expect, it } from 'vitest';
import { checkSystematic, type SystematicOptions } from '../../src/harness/systematic.js';
import { ALL_STRATEGIES, type SystematicStrategy } from '../../src/harness/systematic-plans.js';
import { defineProperty, type Property } from '../../src/harness/property.js';
import type { ControllerDefinition } from '../../src/runtime/define-controller.js';
import { defineProgram, type FaultPlan, type RunRecord, type Scenario } from '../../src/index.js';
import { allFaults } from '../../faults/index.js';
import { bugZoo, type BugZooEntry } from '../../examples/bug-zoo/index.js';
import { orphanSweep, type MultiFaultExhibit } from '../../examples/multi-fault/index.js';
import * as cluster from '../../examples/fault-targets/list-order/cluster.js';
import { clusterBuggy } from '../../examples/fault-targets/list-order/buggy.js';
import { clusterCorrect } from '../../examples/fault-targets/list-order/correct.js';
import * as audit from '../../examples/fault-targets/duplication/audit.js';
import { auditBuggy } from '../../examples/fault-targets/duplication/buggy.js';
import { auditCorrect } from '../../examples/fault-targets/duplication/correct.js';
import * as database from '../../examples/fault-targets/recreation/database.js';
import { databaseBuggy } from '../../examples/fault-targets/recreation/buggy.js';
import { databaseCorrect } from '../../examples/fault-targets/recreation/correct.js';
import * as batch from '../../examples/fault-targets/coalescing/batch.js';
import { batchBuggy } from '../../examples/fault-targets/coalescing/buggy.js';
import { batchCorrect } from '../../examples/fault-targets/coalescing/correct.js';
import * as widget from '../../examples/fault-targets/api-conflict/widget.js';
import { widgetBuggy } from '../../examples/fault-targets/api-conflict/buggy.js';
import { widgetCorrect } from '../../examples/fault-targets/api-conflict/correct.js';
import * as shop from '../../examples/fault-targets/flaky-downstream/shop.js';
import { shopBuggy } from '../../examples/fault-targets/flaky-downstream/buggy.js';
import { shopCorrect } from '../../examples/fault-targets/flaky-downstream/correct.js';
import * as site from '../../examples/fault-targets/reordering/site.js';
import { siteBuggy } from '../../examples/fault-targets/reordering/buggy.js';
import { siteCorrect } from '../../examples/fault-targets/reordering/correct.js';
import * as app from '../../examples/fault-targets/single-child/app.js';
import { singleChildBuggy } from '../../examples/fault-targets/single-child/buggy.js';
import { singleChildCorrect } from '../../examples/fault-targets/single-child/correct.js';

/**
 * A test per systematic strategy (issue 16): run alone, at depth 1, each strategy finds the bug
 * of its target (a fault target or a bug-zoo exhibit that its fault kind breaks), names itself
 * as the failing plan, and finds nothing on the target's fixed twin, with every plan it ran fired.
 */

/** A fault target's judge as a property. */
function judged(judge: (run: RunRecord) => true | string): () => Property {
  return defineProperty({
    name: 'target-healthy',
    description: "the fault target's own health check",
    defaults: {},
    judge: (run) => {
      const v = judge(run);
      return v === true ? { ok: true } : { ok: false, summary: v, explanation: `Let: the target run. Then: ${v}`, evidence: {} };
    },
  });
}

interface Target {
  name: string;
  buggy: readonly ControllerDefinition[];
  correct: readonly ControllerDefinition[];
  property: () => Property;
  /** Options for one version (its controllers' names in the base scenario). */
  options: (controllers: readonly ControllerDefinition[]) => SystematicOptions;
  /** The fixed twin never makes the move the strategy targets (so the strategy derives nothing for it), and why. */
  twinAvoids?: string;
  /** A strategy whose plans only exist after another's fault: that one runs first, at depth 2. */
  after?: SystematicStrategy;
}

const empty: FaultPlan = { events: [], background: [] };

function faultTarget(name: string, buggy: ControllerDefinition, correct: ControllerDefinition, scenario: (controller: string, faults: FaultPlan) => Scenario, judge: (run: RunRecord) => true | string, extra: SystematicOptions = {}): Target {
  // no quiet tail: the targets' checks judge the end of the settle phase, as their fault-law tests do
  return { name, buggy: [buggy], correct: [correct], property: judged(judge), options: (cs) => ({ scenarios: [scenario(cs[0]!.name, empty)], tailMs: 0, ...extra }) };
}

function zoo(name: string): Target {
  const e: BugZooEntry = bugZoo.find((x) => x.name === name)!;
  const { objects, downstream, environment, scenarioOptions } = e.options;
  return {
    name: `bug zoo ${name}`,
    buggy: e.buggy,
    correct: e.correct,
    property: e.property,
    // the default base scenarios: create an object, change its spec, change it back, re-apply it
    options: () => ({ ...(objects ? { objects } : {}), ...(downstream ? { downstream } : {}), ...(environment ? { environment } : {}), ...(scenarioOptions ? { scenarioOptions } : {}) }),
  };
}

const listOrder = faultTarget('fault target list-order', clusterBuggy, clusterCorrect, cluster.clusterScenario, cluster.judgeCluster);
// a realistic stale read (the delivery it rests on held back) leaves the Pod just created out of the
// replica set's cached list (the list-order cluster was caught only by a cache going back in time)
const staleZoo: Target = { ...zoo('stale-snapshot'), twinAvoids: 'it lists its Pods live, so no cached read can be stale' };
const singleChild = faultTarget('fault target single-child', singleChildBuggy, singleChildCorrect, app.singleChildScenario, app.judgeSingleChild);

const targets: Record<SystematicStrategy, Target> = {
  'crash-after-write': singleChild,
  'crash-before-write': singleChild,
  'crash-around-request': zoo('non-idempotent-api'),
  'stale-read-before-write': staleZoo,
  'unobserved-state': zoo('stale-snapshot'),
  'unnotified-state': zoo('lost-event'),
  'coalesced-state': faultTarget('fault target coalescing', batchBuggy, batchCorrect, batch.batchScenario, batch.judgeBatch, { environment: [batch.taskRunner] }),
  'permuted-list': listOrder,
  'delayed-event': zoo('stale-snapshot'),
  'duplicated-event': faultTarget('fault target duplication', auditBuggy, auditCorrect, audit.auditScenario, audit.judgeAudit),
  'request-failure': faultTarget('fault target flaky-downstream', shopBuggy, shopCorrect, shop.shopScenario, shop.judgeShop, { downstream: shop.shopDownstream }),
  'conflict-at-write': faultTarget('fault target api-conflict', widgetBuggy, widgetCorrect, widget.widgetScenario, widget.judgeWidget),
  'error-at-write': singleChild,
  recreation: faultTarget('fault target recreation', databaseBuggy, databaseCorrect, database.databaseScenario, database.judgeDatabase),
  // a lagging list exists only after a restart: paired after a crash
  'stale-list-after-restart': multiFaultTarget(orphanSweep, 'crash-after-write'),
  // the crash and the lagging list in one plan: found at depth 1
  'restart-from-stale-replica': multiFaultTarget(orphanSweep),
  // the Site's annotation written back from the version the user's change replaced (the cache caught up only after it)
  'stale-across-change': faultTarget('fault target site (lost update)', siteBuggy, siteCorrect, site.siteScenario, site.judgeSite),
  // the user edits the Site right after creating it: the edit's event held back past the reconcile the creation queued
  // a hosted program's owner list from a lagging replica, just before it deletes what nothing it listed owns
  'stale-program-list': ownerGc(),
  'held-change': faultTarget('fault target site (lost update, an edit right after the create)', siteBuggy, siteCorrect, editedAtOnce, site.judgeSite),
};

/**
 * A hosted GC (test/unit/host/programs/owner-gc.ts) that lists its owners with resourceVersion=0
 * and deletes the ConfigMaps of owners it did not list (red team round 10 M-1); its twin asks for
 * the owner with a live GET before it deletes. Echo b and its ConfigMap come just before a sweep
 * that deletes an orphan: the sweep's owner list lagging behind Echo b deletes ConfigMap b.
 */
function ownerGc(): Target {
  const resources = [{ group: 'example.com', version: 'v1', kind: 'Echo', plural: 'echoes' }];
  const gc = (args: string[]) => defineProgram({ entry: 'test/unit/host/programs/owner-gc.ts', for: 'Echo', name: 'gc', args, resources });
  const echo = (name: string) => ({ apiVersion: 'example.com/v1', kind: 'Echo', metadata: { name, namespace: 'default' }, spec: { message: name } });
  const cm = (name: string, owner: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', labels: { 'echo-owner': owner } }, data: {} });
  const scenario: Scenario = {
    seed: 1,
    controllers: [{ name: 'gc' }],
    initialObjects: [],
    workload: [
      { at: 0, type: 'create', object: echo('a') },
      { at: 0, type: 'create', object: cm('a', 'a') },
      { at: 0, type: 'create', object: cm('orphan-1', 'gone') },
      { at: 1500, type: 'create', object: echo('b') },
      { at: 1600, type: 'create', object: cm('b', 'b') },
      { at: 1600, type: 'create', object: cm('orphan-2', 'gone') },
    ],
    faults: empty,
    options: { faultWindowMs: 2_500, settleMs: 1_000 },
  };
  const judge = (run: RunRecord): true | string => {
    const names = new Set(run.finalObjects.filter((o) => o.kind === 'ConfigMap').map((o) => o.metadata.name));
    const lost = run.finalObjects.filter((o) => o.kind === 'Echo' && !names.has(o.metadata.name)).map((o) => o.metadata.name);
    return lost.length === 0 ? true : `the ConfigMap of Echo ${lost.join(', ')} was deleted though its owner exists`;
  };
  return { name: 'a hosted owner GC (M-1)', buggy: [gc([])], correct: [gc(['--recheck'])], property: judged(judge), options: () => ({ scenarios: [scenario], tailMs: 0 }) };
}

function editedAtOnce(controller: string, faults: FaultPlan): Scenario {
  const s = site.siteScenario(controller, faults);
  return { ...s, workload: s.workload.map((a) => ({ ...a, at: 100 })) };
}

function multiFaultTarget(e: MultiFaultExhibit, after?: SystematicStrategy): Target {
  const { actions: _actions, maxObjects: _maxObjects, ...options } = e.options;
  return { name: `multi-fault ${e.name}`, buggy: e.buggy, correct: e.correct, property: e.property, options: () => options, ...(after ? { after } : {}) };
}

function run(t: Target, version: 'buggy' | 'correct', strategy: SystematicStrategy, stopOnFailure: boolean) {
  const strategies = t.after ? [t.after, strategy] : [strategy];
  return checkSystematic(t[version], { ...t.options(t[version]), faults: allFaults, properties: [t.property()], strategies, depth: t.after ? 2 : 1, stopOnFailure, shrink: false, determinism: false });
}

describe('systematic strategies, one test each', () => {
  it('covers every strategy', () => {
    expect(Object.keys(targets).sort()).toEqual([...ALL_STRATEGIES].sort());
  });

  for (const strategy of ALL_STRATEGIES) {
    const t = targets[strategy];
    it(`${strategy} finds the bug of ${t.name}, and nothing on its fixed twin`, async () => {
      const buggy = await run(t, 'buggy', strategy, true);
      expect(buggy.ok, `${strategy} found nothing on ${t.name}`).toBe(false);
      expect(buggy.systematic.failingPlan?.strategy).toBe(strategy);
      if (!buggy.ok) expect(buggy.failedAtRun).toBeGreaterThan(1); // not the fault-free reference run
      const correct = await run(t, 'correct', strategy, false);
      expect(correct.ok ? 'passed' : `${correct.summary}\n${JSON.stringify(correct.systematic.failingPlan)}`).toBe('passed');
      const rep = correct.systematic.strategies.find((r) => r.strategy === strategy)!;
      const ran = t.after ? rep.pairs : { ran: rep.plans, fired: rep.fired };
      if (t.twinAvoids === undefined) expect(ran.ran).toBeGreaterThan(0);
      else expect(ran.ran).toBe(0);
      expect(ran.fired).toBe(ran.ran);
    });
  }
});
