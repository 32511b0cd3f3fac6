import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findRevert } from '../../properties/recovery.js';
import { edgeTriggered } from '../../examples/replicas/edge-triggered.js';
import { levelTriggered } from '../../examples/replicas/level-triggered.js';
import { allFaults } from '../../faults/index.js';
import { check, defineFault, type FaultGenContext, type NewObject, type Story } from '../../src/index.js';
import { scenario as scenarioArbitrary } from '../../src/arbitrary/scenario.js';
import { resolveStory } from '../../src/harness/story.js';
import { toReportModel } from '../../src/report/result.js';
import { markdown } from '../../src/report/markdown.js';
import '../../src/vitest/index.js';

const web: NewObject = { kind: 'ReplicaSet', metadata: { name: 'web', namespace: 'shop' }, spec: { replicas: 3 }, status: { replicas: 0 } };

/** Scale up, an irrelevant label, then back to the manifest (a GitOps re-sync): a spec revert. */
const story: Story = {
  objects: [web],
  actions: [
    { at: 2000, type: 'patch', kind: 'ReplicaSet', key: 'shop/web', patch: { spec: { replicas: 5 } } },
    { at: 4000, type: 'patch', kind: 'ReplicaSet', key: 'shop/web', patch: { metadata: { labels: { team: 'shop' } } } },
    { at: 6000, type: 'apply', object: web },
  ],
  jitterMs: 300,
};

describe('check with a story', () => {
  it('finds the edge-triggered bug with the story\'s names, and shrinks the story as well as the faults', async () => {
    const r = await check(edgeTriggered, { story, seed: 1, runs: 100 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.property).toBe('convergence');
    expect(r.scenario.initialObjects.map((o) => `${o.metadata.namespace}/${o.metadata.name}`)).toEqual(['shop/web']);
    // the label patch is irrelevant: shrinking removed it; the jitter shrank back to the story's times
    expect(r.scenario.workload.length).toBeLessThan(story.actions!.length);
    expect(r.scenario.workload.every((a) => story.actions!.some((s) => s.at === a.at && s.type === a.type))).toBe(true);
    const faults = (s: typeof r.scenario) => s.faults.events.length + s.faults.background.length;
    expect(faults(r.scenario)).toBeLessThanOrEqual(faults(r.originalScenario));
    expect(faults(r.scenario)).toBeLessThanOrEqual(3);
    // reports name the story's objects
    const model = toReportModel(r);
    expect(markdown(model)).toMatch(/shop\/web/);
    expect(r.explanation).toMatch(/shop\/web/);
  });

  it('passes the level-triggered twin: every fault kind around the story, every property', async () => {
    const r = await check(levelTriggered, { story, seed: 2, runs: 40 });
    expect(r.ok, r.ok ? '' : `${r.property}: ${r.summary}`).toBe(true);
    // faults really were generated around it
    expect(r.coverage.some((c) => c.injected > 0)).toBe(true);
  });

  it('works through the vitest matcher too', async () => {
    await expect(levelTriggered).toPassCheck({ story, runs: 10, seed: 3, reportDir: false });
    await expect(expect(edgeTriggered).toPassCheck({ story, runs: 50, seed: 1, reportDir: false })).rejects.toThrow(/edge-triggered fails convergence/);
  });

  it('varies action times within ± jitter, keeps the story\'s order, and fault generators target the story\'s objects', () => {
    let seen: FaultGenContext | undefined;
    const spy = defineFault({ kind: 'spy', models: 'nothing', survivedBy: 'anything', actsOn: 'controller', arbitrary: (ctx) => ((seen = ctx), fc.constant([])), install: () => () => undefined });
    const arb = scenarioArbitrary({ controllers: [{ name: 'edge-triggered' }], primaryKinds: ['ReplicaSet'], objects: [], story: resolveStory(story, 't', 'story'), faults: [spy, ...allFaults] });
    const samples = fc.sample(arb, { seed: 3, numRuns: 60 });
    for (const s of samples) {
      expect(s.initialObjects).toEqual([web]);
      expect(s.workload.map((a) => a.type)).toEqual(['patch', 'patch', 'apply']);
      s.workload.forEach((a, i) => expect(Math.abs(a.at - story.actions![i]!.at)).toBeLessThanOrEqual(300));
      expect(s.workload.map((a) => a.at)).toEqual([...s.workload.map((a) => a.at)].sort((x, y) => x - y));
    }
    expect(new Set(samples.map((s) => s.workload[0]!.at)).size).toBeGreaterThan(5);
    expect(seen).toMatchObject({ keys: ['shop/web'], kinds: ['ReplicaSet'], userWrites: 3 });
    // user writes can fail too (the user retries them)
    expect(samples.some((s) => s.faults.events.some((e) => e.target === 'user'))).toBe(true);
  });

  it('mixes generated objects in when `objects` is given', () => {
    const arb = scenarioArbitrary({ controllers: [{ name: 'edge-triggered' }], objects: [{ kind: 'ReplicaSet', spec: [{ replicas: 2 }] }], story: resolveStory(story, 't', 'story') });
    const s = fc.sample(arb, { seed: 4, numRuns: 20 });
    expect(s.every((x) => x.initialObjects.length === 1 && x.workload.some((a) => a.type === 'create' && a.object.metadata.name === 'replicaset-0'))).toBe(true);
  });

  it('recovery sees the story\'s spec revert (patched to 5, applied back to the manifest)', () => {
    const scenario = { seed: 0, controllers: [{ name: 'level-triggered' }], initialObjects: story.objects!, workload: story.actions!, faults: { events: [], background: [] } };
    expect(findRevert(scenario)).toMatchObject({ kind: 'ReplicaSet', key: 'shop/web', awayAt: 2000, backAt: 6000, spec: { replicas: 3 }, awaySpec: { replicas: 5 }, excursion: [0, 2] });
  });

  it('refuses a malformed story, naming the JSON path', async () => {
    const bad = { objects: [web], actions: [{ at: 'soon', type: 'scale', kind: 'ReplicaSet', key: 'shop/web' }] } as unknown as Story;
    await expect(check(levelTriggered, { story: bad })).rejects.toThrow(/steadystate\.check: options\.story\.actions\[0\]\.type unknown action type "scale"/);
    await expect(check(levelTriggered, { story: { objects: [web, web] } })).rejects.toThrow(/options\.story\.objects\[1\] is ReplicaSet shop\/web again/);
  });
});
