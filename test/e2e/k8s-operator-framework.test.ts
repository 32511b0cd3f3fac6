import { describe, expect, it } from 'vitest';
import { allFaults, apiConflict, apiError, check, defineProgram, simulate, watchDisconnect, type Scenario } from '../../src/index.js';

/**
 * A published operator framework, run unchanged: `@dot-i/k8s-operator` 1.3.9 (client-node 0.20,
 * `request`, `gaxios`; the npm package, a devDependency) under examples/operators/k8s-operator-greeter.
 * The careful Greeting operator passes every fault the framework survives; what it cannot survive
 * are the framework's own defects, each found with one fault: it throws on a watch's ERROR event
 * (kopf had the same bug: zalando-incubator/kopf#8) and ends the process when a watch request
 * fails. The naive operator, which the framework lets drop a failed event, is caught too.
 */
const greeter = (variant: 'careful' | 'naive') =>
  defineProgram({
    entry: `examples/operators/k8s-operator-greeter/${variant}.ts`,
    for: 'Greeting',
    name: 'greeter',
    resources: [{ kind: 'Greeting', plural: 'greetings', group: 'example.com', version: 'v1', namespaced: true }],
    sample: [{ message: 'hello' }, { message: 'hi' }],
  });

/** Faults the framework itself cannot survive (they end or error its watches). */
const FRAMEWORK_FATAL = ['watch-disconnect', 'watch-event-loss', 'coalescing', 'api-error'];

describe('@dot-i/k8s-operator, unchanged', () => {
  it('makes the ConfigMap a Greeting asks for and reports it, through its own client stack', { timeout: 60_000 }, async () => {
    const greeting = { kind: 'Greeting', metadata: { name: 'g', namespace: 'default' }, spec: { message: 'hello' } };
    const scenario: Scenario = { seed: 1, controllers: [{ name: 'greeter' }], initialObjects: [], workload: [{ at: 100, type: 'create', object: greeting }, { at: 3000, type: 'update', kind: 'Greeting', key: 'default/g', spec: { message: 'bye' } }], faults: { events: [], background: [] }, options: { faultWindowMs: 5000, settleMs: 5000 } };
    const { run } = await simulate(scenario, { controllers: [greeter('careful')] });
    const cm = run.finalObjects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'g-greeting') as { data?: Record<string, string> } | undefined;
    expect(cm?.data).toEqual({ message: 'bye' });
    const g = run.finalObjects.find((o) => o.kind === 'Greeting')!;
    expect(g.status).toEqual({ message: 'bye', observedGeneration: 2 });
    // the framework's requests went over node's http, as on a cluster (watch, GET/PUT ConfigMap, PATCH status)
    expect(run.trace.filter((e) => e.type === 'http:request').length).toBeGreaterThan(5);
  });

  it('the careful operator passes every fault the framework survives', { timeout: 120_000 }, async () => {
    const r = await check(greeter('careful'), { runs: 30, seed: 2, faults: allFaults.filter((f) => !FRAMEWORK_FATAL.includes(f.kind)) });
    expect(r.ok ? 'passed' : `${r.property}: ${r.summary}`).toBe('passed');
  });

  it('the framework throws on a watch ERROR event: one watch-disconnect ending the stream with an error', { timeout: 60_000 }, async () => {
    const r = await check(greeter('careful'), { runs: 20, seed: 1, faults: [watchDisconnect] });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.property).toBe('never-exits');
    expect(r.summary).toMatch(/crashed on an unhandled rejection \(Error: Malformed event object for '(greetings|configmaps)\.v1'\)/);
    expect(r.scenario.faults.events).toEqual([expect.objectContaining({ kind: 'watch-disconnect', params: { how: 'error' } })]);
  });

  it('the framework ends the process when a watch request fails: one api-error', { timeout: 60_000 }, async () => {
    const r = await check(greeter('careful'), { runs: 20, seed: 1, faults: [apiError] });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.property).toBe('never-exits');
    expect(r.summary).toMatch(/^the program greeter\/0 exited with code 1 \(process\.exit\(1\)\)/);
    expect(r.scenario.faults.events).toHaveLength(1);
  });

  it('the naive operator loses an event whose handler failed: one 409 never retried', { timeout: 60_000 }, async () => {
    const r = await check(greeter('naive'), { runs: 60, seed: 2, faults: [apiConflict] });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.property).toBe('convergence');
    expect(r.explanation).toMatch(/answered 409 at t=[\d.]+ s and was never retried/);
    expect(r.scenario.faults.events).toHaveLength(1);
  });
});
