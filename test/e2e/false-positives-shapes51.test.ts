import { describe, expect, it } from 'vitest';
import { check, type ControllerDefinition, type Scenario } from '../../src/index.js';
import { propertiesOf } from '../helpers/false-positives.js';
import { falsePositiveCorpus, type FalsePositiveCase } from '../../examples/false-positives/index.js';

/**
 * The corpus cases of red team round 11 (rt51: hibernation, inventory-prune, directory-import,
 * stack-health, approval-gate, run-history, metric-scaler): each twin's shrunk failure of its gate, replayed with
 * every property (the case's own in place of the built-ins): the correct controller passes the
 * history and its buggy twin fails it by the property its case names, so a regression of the case,
 * of the fault or of the oracle shows here, not only in a hunt. (Their gate and their twins'
 * small-world runs are in false-positives-a/-b with the rest of the corpus.)
 */
const byName = (name: string): FalsePositiveCase => falsePositiveCorpus.find((x) => x.name === name)!;

async function judge(name: string, scenario: Scenario, controllers?: readonly ControllerDefinition[]): Promise<string> {
  const c = byName(name);
  const out = await check([...(controllers ?? c.controllers)], { ...c.options, properties: propertiesOf(c), runs: 1, seed: 1, shrink: false, determinism: false, corpus: { scenarios: [scenario] } });
  return out.ok ? 'passed' : `${out.property}: ${out.summary}`;
}

const scenario = (c: string, initialObjects: Scenario['initialObjects'], workload: Scenario['workload'], events: Scenario['faults']['events']): Scenario => ({
  seed: 1,
  controllers: byName(c).controllers.map((x) => ({ name: x.name })),
  initialObjects,
  workload,
  faults: { events, background: [] },
});

const web = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } } };

const cases: { name: string; history: string; scenario: Scenario; twinFails: RegExp }[] = [
  {
    name: 'hibernation',
    history: 'a 500 on the second write of the scale-down',
    scenario: scenario('hibernation', [web], [{ at: 0, type: 'create', object: { kind: 'Hibernation', metadata: { name: 'nightly-0', namespace: 'default' }, spec: { target: 'web', hibernate: true } } }], [{ kind: 'api-error', nth: 2, params: { status: 500 } }]),
    twinFails: /^convergence: .*remembers 0/,
  },
  {
    name: 'inventory-prune',
    history: 'a crash between the inventory write and the prune of a revision that dropped a ConfigMap',
    scenario: scenario('inventory-prune', [], [
      { at: 0, type: 'create', object: { kind: 'Kustomization', metadata: { name: 'apps-0', namespace: 'default' }, spec: { configs: { api: { port: '9000' } } } } },
      { at: 300, kind: 'Kustomization', key: 'default/apps-0', type: 'update', spec: { configs: { web: { port: '80' }, worker: { threads: '4' } } } },
    ], [{ kind: 'crash-restart', nth: 10, target: 'kustomize', params: { point: 'before-call' } }]),
    twinFails: /^convergence: .*apps-0-api was dropped .* not pruned/,
  },
  {
    name: 'directory-import',
    history: 'a 500 on the first directory listing',
    scenario: scenario('directory-import', [], [{ at: 0, type: 'create', object: { kind: 'DirectorySync', metadata: { name: 'staff-0', namespace: 'default' }, spec: { group: 'eng' } } }], [{ kind: 'flaky-downstream', nth: 1, params: { fail: 'status', status: 500 } }]),
    twinFails: /^no-extra-destructive-actions: .*User default\/staff-0-/,
  },
  {
    name: 'stack-health',
    history: 'a rollout to a new image once the children are up, no fault',
    scenario: scenario('stack-health', [], [
      { at: 0, type: 'create', object: { kind: 'Stack', metadata: { name: 'shop-0', namespace: 'default' }, spec: { image: 'shop:1.0', components: ['api', 'web'] } } },
      { at: 29_100, kind: 'Stack', key: 'default/shop-0', type: 'patch', patch: { spec: { image: 'shop:1.1' } } },
    ], []),
    twinFails: /^status-truthfulness: Stack default\/shop-0 reported Ready .* runs shop:1\.0, not shop:1\.1/,
  },
  {
    name: 'approval-gate',
    history: 'its story: the promotion edited after its approval, no fault',
    scenario: (() => {
      const c = byName('approval-gate');
      const story = c.options.story as { objects: Scenario['initialObjects']; actions: Scenario['workload'] };
      return scenario('approval-gate', story.objects, story.actions, []);
    })(),
    twinFails: /^safety-invariants: .*shop-release holds version 1\.2, which nobody approved/,
  },
  {
    name: 'run-history',
    history: "a 504 on the run's create after it was applied",
    scenario: scenario('run-history', [], [{ at: 0, type: 'create', object: { kind: 'Pipeline', metadata: { name: 'build-0', namespace: 'default' }, spec: { trigger: 1, fail: false } } }], [{ kind: 'api-error', nth: 2, params: { status: 504, applied: true } }]),
    twinFails: /^safety-invariants: .*both run trigger 1 of build-0/,
  },
  {
    name: 'metric-scaler',
    history: 'the twin gate\'s shrunk failure (seed 9): a second active replica from 3 s and coalesced notifications while the image is set twice',
    scenario: (() => {
      const story = byName('metric-scaler').options.story as { objects: Scenario['initialObjects']; actions: Scenario['workload'] };
      const so = (at: number, max: number) => ({ kind: 'ScaledObject', metadata: { name: 'ingest-0', namespace: 'default' }, spec: { target: 'ingest', queue: 'orders', min: 1, max } });
      const s = scenario('metric-scaler', story.objects, [
        story.actions[0]!,
        { at: 4800, type: 'create', object: so(4800, 10) },
        { at: 5100, kind: 'ScaledObject', key: 'default/ingest-0', type: 'update', spec: so(5100, 3).spec },
        story.actions[1]!,
      ], [{ kind: 'second-replica', at: 3001, params: { roundTripMs: 19, jitterMs: 16 } }, { kind: 'coalescing', nth: 16, params: { ms: 3379 } }]);
      return { ...s, seed: 735338380, faults: { ...s.faults, background: [{ kind: 'coalescing', rate: 0.01, params: { ms: 1811 } }] } };
    })(),
    twinFails: /^convergence: .*Worker ingest runs ingest:2, not ingest:3/,
  },
];

describe('corpus cases of red team round 11 (rt51): their twins\' failing histories', () => {
  for (const t of cases) {
    it(`${t.name}: ${t.history}: the correct controller passes`, { timeout: 60_000 }, async () => {
      expect(await judge(t.name, t.scenario)).toBe('passed');
    });
    it(`${t.name}: ${t.history}: the twin fails (${byName(t.name).buggy!.why})`, { timeout: 60_000 }, async () => {
      expect(await judge(t.name, t.scenario, byName(t.name).buggy!.controllers)).toMatch(t.twinFails);
    });
  }
});
