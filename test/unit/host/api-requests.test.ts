import { describe, expect, it } from 'vitest';
import { convergence } from '../../../properties/convergence.js';
import { defineProgram, simulate, type ApiRequest, type Probe, type Scenario, type WorldView } from '../../../src/index.js';

/** The annotator examples, as `check --program` hosts them. */
const annotator = (variant: 'buggy' | 'correct') => defineProgram({ entry: `examples/operators/template-hash/${variant}.ts`, for: 'Deployment', name: variant });
const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } } };
const cut = (name: string): Scenario => ({ seed: 5, controllers: [{ name }], initialObjects: [], workload: [{ at: 0, type: 'create', object: deployment }], faults: { events: [{ kind: 'watch-disconnect', nth: 0 }], background: [] }, options: { faultWindowMs: 3_000, settleMs: 20_000 } });

/** "It watched Deployments again after the cut": a converged predicate over the program's request log. */
const watchedAgain = (v: WorldView) => v.apiRequests().filter((r) => r.watch && r.status === 200 && r.path.startsWith('/apis/apps/v1/deployments')).length >= 2;

describe('WorldView.apiRequests: predicates see what hosted programs sent to the API', () => {
  it('holds every answered request so far, in order, with who sent it (a watch once, when it opened)', async () => {
    const seen: ApiRequest[][] = [];
    const probe: Probe = { name: 'look', everyMs: 1_000, phases: ['faults', 'settle'], fn: (v) => void seen.push(v.apiRequests()) === undefined };
    const { run } = await simulate(cut('correct'), { controllers: [annotator('correct')], probes: [probe], tailMs: 0 });
    const last = seen.at(-1)!;
    expect(last.find((r) => r.path.startsWith('/apis/apps/v1/deployments'))).toMatchObject({ controller: 'correct', replica: 0, method: 'GET', path: '/apis/apps/v1/deployments', status: 200, watch: false });
    expect(last.some((r) => r.method === 'PATCH' && r.path.startsWith('/apis/apps/v1/namespaces/default/deployments/web?') && r.status === 200)).toBe(true);
    // the log only grows, in the order of the answers, and is the run's http:request entries
    expect(seen.map((s) => s.length)).toEqual([...seen.map((s) => s.length)].sort((a, b) => a - b));
    expect(last.map((r) => r.t)).toEqual([...last.map((r) => r.t)].sort((a, b) => a - b));
    expect(last.length).toBeLessThanOrEqual(run.trace.filter((e) => e.type === 'http:request').length);
  });

  it('"it watched again after the cut" is a one-line converged predicate: fails the annotator that never restarts its informer, holds on the one that does', async () => {
    const property = convergence({ converged: watchedAgain });
    const judge = async (variant: 'buggy' | 'correct') => {
      const { run } = await simulate(cut(variant), { controllers: [annotator(variant)], properties: [property], tailMs: 0 });
      return property.judge(run, undefined);
    };
    const buggy = await judge('buggy');
    expect(buggy.ok).toBe(false);
    expect(buggy.ok ? '' : buggy.summary).toMatch(/never converged|not converged|converge/);
    expect((await judge('correct')).ok).toBe(true);
  });
});
