import { describe, expect, it } from 'vitest';
import { check as checkWith } from '../../src/harness/check.js';
import { check } from '../../src/check.js';
import { defineProperty, type Property } from '../../src/harness/property.js';
import { defineFault } from '../../src/harness/fault.js';
import type { CheckProgress } from '../../src/harness/check-options.js';
import type { CheckFailed } from '../../src/harness/check-result.js';
import type { EnvironmentActor } from '../../src/harness/environment.js';
import { defineController } from '../../src/runtime/define-controller.js';
import { edgeTriggered } from '../../examples/replicas/edge-triggered.js';
import { levelTriggered } from '../../examples/replicas/level-triggered.js';
import { eventLoss } from '../../faults/event-loss.js';
import { convergence } from '../../properties/convergence.js';
import { idempotence } from '../../properties/idempotence.js';
import { noHotLoop } from '../../properties/no-hot-loop.js';
import { replicaObjects } from './check-fixtures.js';
import fc from 'fast-check';

const base = { faults: [eventLoss], properties: [convergence()], objects: replicaObjects };

/** A property that holds and records every scenario it judged (shrinking runs excluded by the caller). */
function recorder(seen: string[]): Property {
  return defineProperty({ name: 'recorder', description: 'records scenarios', defaults: {}, judge: (run) => (seen.push(JSON.stringify(run.scenario)), { ok: true }) })();
}

describe('check', () => {
  it('passes a level-triggered controller and reports counts, stats, coverage and determinism samples', async () => {
    const r = await checkWith(levelTriggered, { ...base, properties: [convergence(), idempotence(), noHotLoop()], runs: 100, seed: 1 });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r).toMatchObject({ controller: 'level-triggered', runs: 100, seed: 1, property: null, scenario: null, path: null, corpusReplayed: 0, determinismChecked: 10 });
    expect(r.properties).toEqual(['convergence', 'idempotence', 'no-hot-loop']);
    expect(r.faults).toEqual(['event-loss']);
    const cov = r.coverage.find((c) => c.kind === 'event-loss')!;
    expect(cov.enabled).toBeGreaterThan(20);
    expect(cov.enabled).toBeLessThan(80);
    expect(cov.injected).toBeGreaterThan(0);
    expect(cov.changedBehaviour).toBeLessThanOrEqual(cov.enabled);
    expect(r.stats.convergenceLatencyMs!.p50).toBeLessThanOrEqual(r.stats.convergenceLatencyMs!.p90);
    expect(r.stats.convergenceLatencyMs!.p90).toBeLessThanOrEqual(r.stats.convergenceLatencyMs!.p99);
    expect(r.stats.reconcilesPerObject).toBeGreaterThan(1);
    expect(r.stats.storeWritesPerObject).toBeGreaterThanOrEqual(1);
    expect(r.stats.peakDownstreamQps).toBe(0);
  });

  it('finds the edge-triggered bug and returns it as data, without throwing', async () => {
    const r = await checkWith(edgeTriggered, { ...base, runs: 100, seed: 2 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.property).toBe('convergence');
    expect(r.summary).toMatch(/not converged/);
    expect(r.explanation).toMatch(/^Let: .*dropped.*Then: /s);
    expect(r.seed).toBe(2);
    expect(r.path).toMatch(/^\d+(:\d+)*$/);
    expect(r.failedAtRun).toBeGreaterThanOrEqual(1);
    expect(r.runs).toBe(r.failedAtRun);
    expect(r.run.scenario).toEqual(r.scenario);
    expect(r.determinism.ok).toBe(true);
    expect(r.originalScenario.workload.length).toBeGreaterThanOrEqual(r.scenario.workload.length);
    expect(r.scenario.faults.events.length + r.scenario.faults.background.length).toBe(1);
    expect(JSON.parse(JSON.stringify(r.scenario))).toEqual(r.scenario);
  });

  it('replays a failure from its seed and path, and the same seed gives the same result', async () => {
    const first = (await checkWith(edgeTriggered, { ...base, seed: 3 })) as CheckFailed;
    expect(first.ok).toBe(false);
    const again = (await checkWith(edgeTriggered, { ...base, seed: 3 })) as CheckFailed;
    expect(again.scenario).toEqual(first.scenario);
    expect(again.path).toBe(first.path);
    const replay = (await checkWith(edgeTriggered, { ...base, seed: first.seed, path: first.path })) as CheckFailed;
    expect(replay.ok).toBe(false);
    expect(replay.property).toBe(first.property);
    expect(replay.scenario).toEqual(first.scenario);
    expect(replay.run.hash).toBe(first.run.hash);
  });

  it('splits runs into shards whose union is exactly the unsharded run', async () => {
    const all: string[] = [];
    const opts = { ...base, runs: 30, seed: 4, determinism: false as const, coverage: false };
    const whole = await checkWith(levelTriggered, { ...opts, properties: [recorder(all)] });
    const parts: string[][] = [[], [], []];
    let runs = 0;
    for (let index = 0; index < 3; index++) {
      const r = await checkWith(levelTriggered, { ...opts, properties: [recorder(parts[index]!)], shard: { index, count: 3 } });
      expect(r.shard).toEqual({ index, count: 3 });
      runs += r.runs;
    }
    expect(whole.runs).toBe(30);
    expect(runs).toBe(30);
    expect(parts.flat().sort()).toEqual([...all].sort());
    expect(parts.every((p) => p.length === 10)).toBe(true);
  });

  it('replays the corpus first; a corpus failure is not reported as new, a generated one is', async () => {
    const found = (await checkWith(edgeTriggered, { ...base, seed: 5 })) as CheckFailed;
    const saved: CheckFailed[] = [];
    const fromCorpus = await checkWith(edgeTriggered, { ...base, seed: 6, corpus: { scenarios: [found.scenario], onFailure: (f) => void saved.push(f) } });
    expect(fromCorpus.ok).toBe(false);
    expect(fromCorpus.corpusReplayed).toBe(1);
    expect(fromCorpus.runs).toBe(1);
    expect(!fromCorpus.ok && fromCorpus.failedAtRun).toBe(1);
    expect(saved).toHaveLength(0);

    const fresh = await checkWith(edgeTriggered, { ...base, seed: 6, corpus: { scenarios: [], onFailure: (f) => void saved.push(f) } });
    expect(saved).toEqual([fresh]);

    const passing = await checkWith(levelTriggered, { ...base, runs: 5, seed: 6, corpus: { scenarios: [{ ...found.scenario, controllers: [{ name: 'level-triggered' }] }] } });
    expect(passing).toMatchObject({ ok: true, corpusReplayed: 1, runs: 6 });
  });

  it('reports progress after every scenario, ending with "done"', async () => {
    const seen: CheckProgress[] = [];
    await checkWith(levelTriggered, { ...base, runs: 12, seed: 7, onProgress: (p) => seen.push({ ...p }) });
    expect(seen.map((p) => p.runs)).toEqual([...Array.from({ length: 12 }, (_, i) => i + 1), 12]);
    expect(seen.every((p) => p.total === 12 && p.failures === 0)).toBe(true);
    expect(seen.at(-1)!.phase).toBe('done');
  });

  it('reports a property whose judge throws as a failure naming the property', async () => {
    const broken = defineProperty({
      name: 'broken',
      description: 'throws',
      defaults: {},
      judge: () => {
        throw new Error('oops');
      },
    })();
    const r = await checkWith(levelTriggered, { ...base, properties: [broken], runs: 5, seed: 8 });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.property).toBe('broken');
    expect(!r.ok && r.explanation).toMatch(/its judge threw Error: oops/);
  });

  it('runs several controllers in one world and installs environment actors with their parameters', async () => {
    const installs: unknown[] = [];
    const actor: EnvironmentActor = { name: 'recorder', description: 'records installs', install: (_w, params) => (installs.push(params), () => {}) };
    const helper = defineController({ name: 'helper', for: 'Other', reconcile: async () => undefined });
    const seen: string[] = [];
    const r = await checkWith([levelTriggered, helper], { ...base, properties: [recorder(seen)], runs: 3, seed: 9, environment: [{ actor, params: { speed: 2 } }] });
    expect(r.ok).toBe(true);
    expect(r.controller).toBe('level-triggered');
    expect(installs.length).toBeGreaterThanOrEqual(3);
    expect(installs[0]).toEqual({ speed: 2 });
    const s = JSON.parse(seen[0]!);
    expect(s.controllers).toEqual([{ name: 'level-triggered' }, { name: 'helper' }]);
    expect(s.environment).toEqual([{ name: 'recorder', params: { speed: 2 } }]);
  });

  it('fails with property "fault-coverage" when required and an enabled kind never fired', async () => {
    const silent = defineFault({ kind: 'silent', models: 'nothing', survivedBy: 'anything', actsOn: 'notify', arbitrary: () => fc.constant([{ kind: 'silent', nth: 0 }]), install: () => () => {} });
    const r = await checkWith(levelTriggered, { ...base, faults: [eventLoss, silent], runs: 20, seed: 10, requireAllFaultsFired: true });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.property).toBe('fault-coverage');
    expect(r.summary).toBe('fault kind silent never fired');
    expect(r.coverage.find((c) => c.kind === 'silent')).toMatchObject({ injected: 0 });
  });

  it('uses the built-in properties and faults by default (public check), with objects from the controller sample', async () => {
    const sampled = defineController({ name: 'sampled', for: 'ReplicaSet', sample: { replicas: 2 }, reconcile: levelTriggered.reconcile, resyncPeriodMs: levelTriggered.resyncPeriodMs });
    const r = await check(sampled, { runs: 20, seed: 11 });
    expect(r.properties.length).toBeGreaterThanOrEqual(3);
    expect(r.properties).toContain('convergence');
    expect(r.faults).toContain('event-loss');
    expect(r.ok).toBe(true);
  });

  it('throws a TypeError for unusable options, never for a failing property', async () => {
    await expect(check(levelTriggered, { runs: -1 })).rejects.toThrow(/^steadystate\.check: options\.runs must be an integer ≥ 1/);
  });
});
