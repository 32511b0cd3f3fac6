import { describe, expect, it } from 'vitest';
import { deploymentMirrorBuggy } from '../../examples/deployment-mirror/buggy.js';
import { deploymentMirror } from '../../examples/deployment-mirror/correct.js';
import { webApp } from '../../examples/deployment-mirror/web-app.js';
import { allFaults } from '../../faults/index.js';
import { defaultProperties } from '../../properties/index.js';
import { sameEndState } from '../../properties/same-end-state.js';
import { statusTruthfulness } from '../../properties/status-truthfulness.js';
import { check } from '../../src/check.js';
import { cluster } from '../../src/environment/index.js';
import { PLACEMENT_FIELDS } from '../../src/environment/pod-lifecycle.js';
import type { Scenario } from '../../src/harness/scenario.js';
import { replay } from '../../src/replay.js';
import { simulate } from '../../src/simulate.js';

const scenario: Scenario = {
  seed: 1,
  controllers: [{ name: 'deployment-mirror' }],
  environment: [{ name: 'cluster' }],
  initialObjects: [],
  workload: [{ at: 0, type: 'create', object: webApp('web', { replicas: 3, image: 'nginx:1' }) }],
  faults: { events: [], background: [] },
};

describe('deployment-mirror example', () => {
  it('simulate + status truthfulness: the buggy mirror says Ready 2.1 s before any pod is, the correct one waits', async () => {
    const p = statusTruthfulness();
    const buggy = await simulate(scenario, { controllers: [deploymentMirrorBuggy], properties: [p] });
    const v = p.judge(buggy.run, undefined);
    if (v.ok) throw new Error('expected the buggy mirror to be caught');
    expect(v.summary).toBe('WebApp default/web reported Ready for 2.1 s while not actually ready (Deployment default/web: Available=unset (0/3 available))');
    const correct = await simulate(scenario, { controllers: [deploymentMirror], properties: [p] });
    expect(p.judge(correct.run, undefined)).toMatchObject({ ok: true, stats: { judged: true } });
    // the WebApp's Ready condition changed exactly when the Deployment became Available
    const ready = correct.run.writes.find((w) => w.kind === 'WebApp' && w.actor.startsWith('controller:') && w.t > 1000)!;
    const available = correct.run.writes.find((w) => w.kind === 'Deployment' && w.actor === 'environment:deployment' && w.changed.includes('status.conditions') && w.t > 1000)!;
    expect([available.t, ready.t]).toEqual([2101, 2102]);
  });

  it('check finds the buggy mirror at once and shrinks the reproduction to one create, no faults', async () => {
    const result = await check(deploymentMirrorBuggy, { environment: [cluster], faults: allFaults, properties: [statusTruthfulness()], runs: 50, seed: 42 });
    if (result.ok) throw new Error('expected check to fail');
    expect(result.property).toBe('status-truthfulness');
    expect(result.explanation).toMatch(/^Let: at t=0\.001 s controller deployment-mirror\/0 wrote .* claiming it Ready, while it was not actually ready: Deployment default\/webapp-0: Available=unset.* Then: the claim stood for 2\.1 s/);
    expect(result.scenario.faults).toEqual({ events: [], background: [] });
    expect(result.scenario.workload).toHaveLength(1);
    expect(result.scenario.environment).toEqual([{ name: 'cluster' }]);
    // the reproduction replays (the built-in actors are known by name): the same failure, the same trace
    const again = await replay(deploymentMirrorBuggy, { scenario: result.scenario, property: 'status-truthfulness' });
    expect(again).toMatchObject({ ok: false, property: 'status-truthfulness', failure: { summary: result.summary } });
    expect((await replay(deploymentMirrorBuggy, { scenario: result.scenario, property: 'status-truthfulness' })).hash).toBe(again.hash);
    // and the fix makes it pass
    expect((await replay(deploymentMirror, { scenario: result.scenario, property: 'status-truthfulness' })).ok).toBe(true);
  });

  it('with a lag that hides the start-up window, check still catches it through an environment fault, shrunk to one event', async () => {
    const result = await check(deploymentMirrorBuggy, { environment: [cluster], faults: allFaults, properties: [statusTruthfulness({ lagMs: 5000 })], runs: 200, seed: 7 });
    if (result.ok) throw new Error('expected check to fail');
    expect(result.scenario.faults.events.length + result.scenario.faults.background.length).toBe(1);
    const fault = [...result.scenario.faults.events, ...result.scenario.faults.background][0]!;
    expect(['environment-pod-never-ready', 'environment-crash-looping-pod', 'environment-slow-rollout', 'environment-pod-eviction']).toContain(fault.kind);
    expect(result.explanation).toContain(fault.kind);
  });

  it('the correct mirror passes check with every fault (environment faults included) and every property', async () => {
    const masked = [...PLACEMENT_FIELDS];
    const properties = [
      // recovery is left out: its "earlier" run drops actions at the revert's own instant, so a
      // revert at t=0 (the instant of the create) compares against an empty world (reported)
      ...defaultProperties().filter((p) => p.name !== 'same-end-state' && p.name !== 'recovery'),
      // which node a pod lands on and its IP depend on what else runs, and a child's generation on
      // how many spec versions it went through (a late controller creates it at the latest one):
      // mask them, as recovery does by default for generations
      sameEndState({ masks: ['metadata.generation', 'status.observedGeneration', ...masked] }),
    ];
    const result = await check(deploymentMirror, { environment: [cluster], faults: allFaults, properties, runs: 100, seed: 3 });
    if (!result.ok) throw new Error(`${result.property}: ${result.summary}\n${result.explanation}\n${JSON.stringify(result.scenario)}`);
    const env = result.coverage.filter((c) => c.kind.startsWith('environment-'));
    expect(env.filter((c) => c.injected > 0).map((c) => c.kind).sort()).toEqual(expect.arrayContaining(['environment-crash-looping-pod', 'environment-pod-never-ready', 'environment-slow-rollout']));
  });
});
