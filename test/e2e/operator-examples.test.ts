import { describe, expect, it } from 'vitest';
import { allFaults, apiError, check, convergence, defineProgram, drift, neverExits, sameEndState, simulate, watchDisconnect, type FaultEvent, type NewObject, type Scenario } from '../../src/index.js';
import { LABEL, queuesServed } from '../../examples/operators/queue-scaler/queue.js';
import { slotsHeld } from '../../examples/operators/slot-claimer/slots.js';

/**
 * examples/operators/: the class-based operator that exits on a watch error and the secret
 * copier that leaves a rejection unhandled are caught (and shrunk) by never-exits; their fixed
 * twins are checked 300 times by `npm run bench hostedexamples`. (The informer script is covered
 * by test/e2e/cli-program.test.ts.) The hash applier writes only with server-side apply: its
 * correct variant passes, its variant that splits its intent over two applies is a hot loop.
 */
describe('examples/operators', () => {
  it('website-operator: exiting on a watch error is a finding, explained with what it printed', async () => {
    const website = defineProgram({ entry: 'examples/operators/website-operator/buggy.ts', for: 'Website', name: 'website', resources: [{ kind: 'Website', plural: 'websites', group: 'example.com', version: 'v1', namespaced: true }], sample: [{ title: 'home', replicas: 1 }] });
    const r = await check(website, { runs: 40, seed: 1, properties: [neverExits()] });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.property).toBe('never-exits');
    expect(r.summary).toMatch(/^the program website\/0 exited with code 1 \(process\.exit\(1\)\) after printing "watch on \/apis\/example\.com\/v1\/websites failed: .*" at t=/);
    // one fault that fails its watch: a cut connection, or an API error answering the watch request (issue 11 item 7)
    expect(r.scenario.faults.events).toHaveLength(1);
    expect(['watch-disconnect', 'api-error']).toContain(r.scenario.faults.events[0]!.kind);
  });

  it('website-operator: a ConfigMap deleted while its watch was closed is made again when the watch starts over', async () => {
    // hunt seed 461 run 26, shrunk: the watch of the site ConfigMaps closes at the DELETED event of
    // drift's delete; a watch started again from now (no resourceVersion) never sends it
    const website = defineProgram({ entry: 'examples/operators/website-operator/correct.ts', for: 'Website', name: 'website', resources: [{ kind: 'Website', plural: 'websites', group: 'example.com', version: 'v1', namespaced: true }] });
    const s: Scenario = {
      seed: 1702170803,
      controllers: [{ name: 'website' }],
      initialObjects: [],
      workload: [{ at: 15_300, type: 'create', object: { kind: 'Website', metadata: { name: 'website-0', namespace: 'default' }, spec: { title: 'home', replicas: 1 } } }],
      faults: { events: [{ kind: 'drift', at: 27_547, params: { action: 'delete', pick: 5, external: false } }, { kind: 'watch-disconnect', nth: 4, params: { how: 'close' } }], background: [] },
    };
    const r = await check(website, { runs: 1, seed: 1, faults: [drift, watchDisconnect], properties: [sameEndState()], corpus: { scenarios: [s] }, determinism: false });
    expect(r.ok ? 'passed' : r.summary).toBe('passed');
  });

  it('template-hash: what a program last did is told in requests, not reconciles', async () => {
    const deployment = (image: string, replicas: number) => ({ replicas, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } } });
    const program = defineProgram({ entry: 'examples/operators/template-hash/buggy.ts', for: 'Deployment', name: 'template-hash', sample: [deployment('nginx:1.27', 1), deployment('nginx:1.28', 2)] });
    // failing checks here skip the determinism self-check (more simulations of the failing run; program-host.test.ts tests it)
    const r = await check(program, { runs: 100, seed: 1, determinism: false });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.property).toBe('same-end-state');
    expect(r.explanation).not.toContain('no controller ever reconciled');
    expect(r.explanation).toMatch(/(no program ever sent a request naming Deployment default\/deployment-\d|the last request about it was [A-Z]+ \/apis\/apps\/v1\/namespaces\/default\/deployments\/deployment-\d by the program template-hash\/0 at t=)/);
  });

  it('ttl-expirer: a program deciding by the clock (setTimeout to a deadline from creationTimestamp) passes when it retries a failed status write; dropping the failed write is caught', async () => {
    const ttl = (v: 'correct' | 'buggy') => defineProgram({ entry: `examples/operators/ttl-expirer/${v}.ts`, for: 'Sandbox', name: 'ttl-expirer', resources: [{ kind: 'Sandbox', plural: 'sandboxes', group: 'example.com', version: 'v1', namespaced: true }], sample: [{ ttlSeconds: 3 }, { ttlSeconds: 20 }] });
    const options = { runs: 30, seed: 1, faults: [apiError], properties: [sameEndState()] };
    const buggy = await check(ttl('buggy'), { ...options, determinism: false });
    expect(buggy.ok).toBe(false);
    if (buggy.ok) return;
    expect(buggy.property).toBe('same-end-state');
    expect(buggy.summary).toMatch(/Sandbox default\/sandbox-\d: status\.(expiresAt|phase) is absent/);
    expect(buggy.explanation).toMatch(/answered 500 at t=[\d.]+ s and was never retried/);
    const correct = await check(ttl('correct'), { ...options, determinism: false });
    expect(correct.ok).toBe(true);
    expect(correct.runs).toBe(30);
  });

  it('secret-copier: a copy nobody awaits fails the process with the rejection, from a story', async () => {
    const copier = defineProgram({ entry: 'examples/operators/secret-copier/buggy.ts', for: 'Secret', name: 'copier' });
    const r = await check(copier, { runs: 40, seed: 1, properties: [neverExits()], story: 'examples/operators/secret-copier/story.yaml', determinism: false });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.property).toBe('never-exits');
    expect(r.summary).toMatch(/^the program copier\/0 crashed on an unhandled rejection \(Error: HTTP-Code: \d+\)/);
    expect(r.explanation).toMatch(/at async copyTo \(examples\/operators\/secret-copier\/copier\.ts:\d+:\d+\)/);
    expect(r.shrinks).toBeGreaterThan(0);
  });

  it('secret-copier: a copy made and deleted while its copies informer was down is made again once the informer is back', async () => {
    // hunt-fp-rate --runs 30 --seeds 973 --only host:secret-copier, run 9 (same-end-state: "drift was never repaired"): the copies
    // informer's list got a 500 and it restarted 5 s later; meanwhile the copier made kube-public's copy and drift deleted it, so
    // no DELETED event ever came. The copier was at fault (an event-only repair); it now fans every source out again after a restart.
    const scenario: Scenario = {"seed":545935917,"controllers":[{"name":"secret-copier"}],"initialObjects":[{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shared"}},{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a"}},{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-b"}},{"apiVersion":"v1","kind":"Secret","metadata":{"name":"registry-credentials","namespace":"shared","labels":{"example.com/copy-to-all-namespaces":"true"}},"type":"Opaque","stringData":{"token":"first"}}],"workload":[{"at":3000,"type":"apply","object":{"apiVersion":"v1","kind":"Secret","metadata":{"name":"registry-credentials","namespace":"shared","labels":{"example.com/copy-to-all-namespaces":"true"}},"type":"Opaque","stringData":{"token":"second"}}},{"at":6000,"type":"create","object":{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-c"}}}],"faults":{"events":[{"kind":"watch-disconnect","nth":7,"params":{"how":"close"}},{"kind":"api-error","nth":13,"params":{"status":504,"applied":false}},{"kind":"flaky-downstream","nth":18,"params":{"fail":"applied-but-lost"}},{"kind":"drift","at":21527,"params":{"action":"delete","pick":2,"external":false}}],"background":[{"kind":"duplication","rate":0.25,"params":{"replay":2,"afterMs":2000}},{"kind":"watch-disconnect","rate":0.14,"params":{"how":"gone"}},{"kind":"api-error","rate":0.36,"params":{"status":500}},{"kind":"flaky-downstream","rate":0.46,"params":{"fail":"latency","ms":2}},{"kind":"environment-slow-rollout","rate":0.47,"params":{"delayMs":13203}}]}};
    const copier = defineProgram({ entry: 'examples/operators/secret-copier/correct.ts', for: 'Secret', name: 'secret-copier' });
    const { run } = await simulate(scenario, { controllers: [copier], faults: allFaults });
    expect(run.finalObjects.filter((o) => o.kind === 'Secret').map((o) => o.metadata.namespace)).toContain('kube-public');
  });

  it('hash-applier: a client-node program writing with server-side apply runs unchanged; the correct one passes, the split applies are a hot loop', async () => {
    const deployment = (image: string, replicas: number) => ({ replicas, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } } });
    const program = (v: string) => defineProgram({ entry: `examples/operators/hash-applier/${v}.ts`, for: 'Deployment', name: 'hash-applier', sample: [deployment('nginx:1.27', 1), deployment('nginx:1.28', 2)] });
    // what it sends: PATCH application/apply-patch+yaml with its field manager; the API merges the annotations in
    const s: Scenario = {
      seed: 3,
      controllers: [{ name: 'hash-applier' }],
      initialObjects: [],
      workload: [
        { at: 0, type: 'create', object: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: deployment('nginx:1.27', 1) } },
        { at: 2_000, type: 'patch', kind: 'Deployment', key: 'default/web', patch: { spec: { replicas: 3, template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } } } } },
      ],
      faults: { events: [], background: [] },
      options: { faultWindowMs: 3_000, settleMs: 3_000 },
    };
    const { run } = await simulate(s, { controllers: [program('correct')], tailMs: 0 });
    const patches = run.trace.filter((e) => e.type === 'http:request' && e['method'] === 'PATCH').map((e) => String(e['path']));
    expect(patches).toEqual(['/apis/apps/v1/namespaces/default/deployments/web?fieldManager=template-hash-applier&force=true', '/apis/apps/v1/namespaces/default/deployments/web?fieldManager=template-hash-applier&force=true']);
    const web = run.finalObjects.find((o) => o.kind === 'Deployment')!;
    expect(web.spec).toMatchObject({ replicas: 3 });
    expect(web.metadata.annotations['example.com/images']).toBe('nginx:1.28');
    // 20 runs, not 30 (stop 50: an equal cut for the queue-scaler and scale tests; host:hash-applier is hunted)
    const ok = await check(program('correct'), { runs: 20, seed: 1 });
    expect(ok.ok).toBe(true);
    // one object, no faults, a short tail: the loop shows in the first run and there is little to shrink
    const buggy = await check(defineProgram({ entry: 'examples/operators/hash-applier/buggy.ts', for: 'Deployment', name: 'hash-applier', sample: deployment('nginx:1.27', 1) }), { runs: 5, seed: 1, faults: [], maxObjects: 1, maxActions: 0, faultWindowMs: 1_000, settleMs: 3_000, tailMs: 3_000, determinism: false });
    expect(buggy.ok).toBe(false);
    if (buggy.ok) return;
    expect(buggy.property).toBe('no-hot-loop');
    expect(buggy.summary).toMatch(/^hot loop: \d+ controller writes .* to Deployment default\/deployment-0 \(metadata\.annotations\.example\.com\/images, metadata\.annotations\.example\.com\/template-hash\)/);
  }, 60_000);

  it('queue-scaler: a client-node program scaling its Deployment through deployments/scale serves its queue; the twin that scales an idle queue to zero fails convergence (red team round 10 S-1: the subresource was 404, so both did nothing and the twin passed)', async () => {
    const program = (v: string) => defineProgram({ entry: `examples/operators/queue-scaler/${v}.ts`, for: 'ConfigMap', name: 'queue-scaler' });
    const s: Scenario = {
      seed: 850,
      controllers: [{ name: 'queue-scaler' }],
      initialObjects: [],
      workload: [
        { at: 0, type: 'create', object: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'w', image: 'w:1' }] } } } } },
        { at: 0, type: 'create', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-queue', namespace: 'default', labels: { [LABEL]: 'web' } }, data: { length: '12', perReplica: '5', minReplicas: '1', maxReplicas: '4' } } as NewObject },
        { at: 3_000, type: 'patch', kind: 'ConfigMap', key: 'default/web-queue', patch: { data: { length: '0' } } },
      ],
      faults: { events: [], background: [] },
      options: { faultWindowMs: 4_000, settleMs: 6_000 },
    };
    const property = convergence({ converged: queuesServed });
    const correct = (await simulate(s, { controllers: [program('correct')], properties: [property], tailMs: 0 })).run;
    expect(property.judge(correct, undefined).ok).toBe(true);
    const puts = correct.trace.filter((e) => e.type === 'http:request' && e['method'] === 'PUT').map((e) => String(e['path']));
    expect(puts).toEqual(['/apis/apps/v1/namespaces/default/deployments/web/scale', '/apis/apps/v1/namespaces/default/deployments/web/scale']);
    const buggy = property.judge((await simulate(s, { controllers: [program('buggy')], properties: [property], tailMs: 0 })).run, undefined);
    expect(buggy.ok ? 'passed' : buggy.summary).toContain('Deployment default/web has 0 replicas; its queue web-queue asks for 1');
  });
});

/**
 * A first-come-first-served slot claimer run as a hosted program (examples/operators/slot-claimer:
 * client-node, a JSON patch `test` op its only guard): which slot a Claim gets depends on whether
 * the claimer saw another Claim's deletion first. Red team round 10 F-1: a watch delay made it see
 * the deletion first, where the fault-free run served the new Claim a second earlier; both ends are
 * correct. The fault-free run of a claimer held a few seconds reaches the run's end (src/harness/twin.ts
 * slowPoints: a hosted program that never set a timer was never held). The claimer that frees a
 * slot only on the delete event it hears leaks one deleted while it was down, and is still caught.
 */
const claimer = (variant: 'correct' | 'buggy') =>
  defineProgram({ entry: `examples/operators/slot-claimer/${variant}.ts`, for: 'Claim', name: 'slot-claimer', resources: [{ kind: 'Claim', plural: 'claims', group: 'example.com', version: 'v1', namespaced: true }], sample: [{}] });
const claim = (at: number, name: string) => ({ at, type: 'create' as const, object: { apiVersion: 'example.com/v1', kind: 'Claim', metadata: { name, namespace: 'default' }, spec: {} } });

/** Claim a takes slot 0 at 1 s; c is created at 5 s and a deleted at 6 s. */
function scenario(events: FaultEvent[]): Scenario {
  return {
    seed: 1,
    controllers: [{ name: 'slot-claimer' }],
    initialObjects: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'slots', namespace: 'default' }, data: { '0': '', '1': '', '2': '' } }],
    workload: [claim(1000, 'a'), claim(5000, 'c'), { at: 6000, type: 'delete', kind: 'Claim', key: 'default/a' }],
    faults: { events, background: [] },
  };
}

async function judge(variant: 'correct' | 'buggy', events: FaultEvent[]): Promise<string> {
  const r = await check(claimer(variant), { runs: 1, seed: 1, faults: allFaults, properties: [sameEndState()], corpus: { scenarios: [scenario(events)] }, shrink: false, determinism: false, coverage: false });
  return r.ok ? 'passed' : `${r.property}: ${r.summary}`;
}

describe('same-end-state on a hosted first-come-first-served slot claimer', () => {
  it("c's ADDED event 1.1 s late: the claimer sees a's deletion first and gives c the freed slot 0 (fault-free: slot 1), as a fault-free claimer a few seconds slower does", { timeout: 60_000 }, async () => {
    expect(await judge('correct', [{ kind: 'delay', nth: 2, params: { ms: 1100 } }])).toBe('passed');
  });

  it("claim-0's ADDED event lost: the claimer first comes to it at claim-1's deletion 11.4 s later and gives it claim-1's freed slot 0 (fault-free: slot 2), as a fault-free claimer held until that deletion does (hunt host:slot-claimer seed 921 run 45)", { timeout: 60_000 }, async () => {
    // before the fix: same-end-state, Claim default/claim-0: status.slot is 0, 2 in the fault-free run (the slow holds end 10 s after a decision: src/harness/twin.ts hostedOvertakenPoints)
    const lost: Scenario = {"seed":2004242689,"controllers":[{"name":"slot-claimer"}],"initialObjects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"slots","namespace":"default"},"data":{"0":"","1":"","2":""}},{"apiVersion":"example.com/v1","kind":"Claim","metadata":{"name":"a","namespace":"default"},"spec":{}}],"workload":[{"at":5000,"type":"create","object":{"apiVersion":"example.com/v1","kind":"Claim","metadata":{"name":"c","namespace":"default"},"spec":{}}},{"at":6000,"type":"delete","kind":"Claim","key":"default/a"},{"at":6000,"kind":"Claim","key":"default/claim-1","type":"delete"},{"at":11700,"type":"create","object":{"kind":"Claim","metadata":{"name":"claim-1","namespace":"default"},"spec":{}}},{"at":12900,"type":"create","object":{"kind":"Claim","metadata":{"name":"claim-0","namespace":"default"},"spec":{}}},{"at":14700,"kind":"Claim","key":"default/claim-0","type":"update","spec":{}},{"at":24300,"kind":"Claim","key":"default/claim-1","type":"delete"}],"faults":{"events":[{"kind":"flaky-downstream","at":1200,"params":{"fail":"outage","forMs":8500,"status":503}},{"kind":"list-order","nth":20,"params":{"order":2}},{"kind":"environment-pod-eviction","at":12094,"params":{"node":0}},{"kind":"environment-slow-rollout","params":{"delayMs":3254}}],"background":[{"kind":"watch-event-loss","rate":0.22},{"kind":"api-conflict","rate":0.05},{"kind":"list-order","rate":0}]}};
    const r = await check(claimer('correct'), { runs: 1, seed: 1, faults: allFaults, properties: [sameEndState()], corpus: { scenarios: [lost] }, shrink: false, determinism: false, coverage: false });
    expect(r.ok ? 'passed' : `${r.property}: ${r.summary}`).toBe('passed');
  });

  it("claim-0's ADDED and MODIFIED events lost, its DELETED dropped by an informer that never cached it: its slot is freed at the next resync, not held for ever (hunt host:slot-claimer seed 962 run 9, a bug of the claimer)", { timeout: 60_000 }, async () => {
    // before the claimer's resync: convergence, slot 0 is held for default/claim-0/…, which is gone (and same-end-state)
    const unseen: Scenario = {"seed":2147483623,"controllers":[{"name":"slot-claimer"}],"initialObjects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"slots","namespace":"default"},"data":{"0":"","1":"","2":""}},{"apiVersion":"example.com/v1","kind":"Claim","metadata":{"name":"a","namespace":"default"},"spec":{}}],"workload":[{"at":0,"kind":"Claim","key":"default/claim-0","type":"reapply"},{"at":5000,"type":"create","object":{"apiVersion":"example.com/v1","kind":"Claim","metadata":{"name":"c","namespace":"default"},"spec":{}}},{"at":5400,"type":"create","object":{"kind":"Claim","metadata":{"name":"claim-0","namespace":"default"},"spec":{}}},{"at":6000,"type":"delete","kind":"Claim","key":"default/a"},{"at":6600,"type":"create","object":{"kind":"Claim","metadata":{"name":"claim-1","namespace":"default"},"spec":{}}},{"at":28200,"kind":"Claim","key":"default/claim-0","type":"delete"},{"at":30000,"kind":"Claim","key":"default/claim-1","type":"delete"}],"faults":{"events":[{"kind":"environment-pod-never-ready","nth":0},{"kind":"environment-pod-eviction","at":14,"params":{"node":0}},{"kind":"watch-event-loss","nth":3},{"kind":"duplication","nth":23,"params":{"replay":1,"afterMs":3}}],"background":[{"kind":"watch-event-loss","rate":0.46},{"kind":"watch-disconnect","rate":0.03,"params":{"how":"close"}},{"kind":"environment-pod-never-ready","rate":0.14},{"kind":"environment-slow-rollout","rate":0.48,"params":{"delayMs":19997}}]}};
    const r = await check(claimer('correct'), { runs: 1, seed: 1, faults: allFaults, properties: [convergence({ converged: slotsHeld }), sameEndState()], corpus: { scenarios: [unseen] }, shrink: false, determinism: false, coverage: false });
    expect(r.ok ? 'passed' : `${r.property}: ${r.summary}`).toBe('passed');
  });

  /** Claim a holds slot 0; x and y are made at 5 s (one sync grants both) and a is deleted at 5.99 s; the claimer crashes right after its `nth` write. */
  const split = (nth: number): Scenario => ({
    seed: 1,
    controllers: [{ name: 'slot-claimer' }],
    initialObjects: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'slots', namespace: 'default' }, data: { '0': '', '1': '', '2': '' } }],
    workload: [claim(1000, 'a'), claim(5000, 'x'), claim(5000, 'y'), { at: 5990, type: 'delete', kind: 'Claim', key: 'default/a' }],
    faults: { events: [{ kind: 'crash-restart', nth, params: { point: 'after-write' } }], background: [] },
  });
  const declared = async (variant: 'correct' | 'buggy', s: Scenario) => {
    const r = await check(claimer(variant), { runs: 1, seed: 1, faults: allFaults, properties: [sameEndState({ timingDependent: ['Claim'] })], corpus: { scenarios: [s] }, shrink: false, determinism: false, coverage: false });
    return r.ok ? 'passed' : `${r.property}: ${r.summary}`;
  };

  it("a crash between x's and y's grants of one sync, back after a's deletion: y gets a's freed slot 0 (fault-free: 2), as a fault-free claimer restarted there that lost nothing does, once Claim is declared timing dependent (F-1b)", { timeout: 60_000 }, async () => {
    // before: same-end-state, Claim default/y: status.slot is 0, 2 in the fault-free run (no hold of a fault-free run splits a sync: src/harness/twin.ts restartPoints)
    expect(await declared('correct', split(2))).toBe('passed');
  });

  it('the claimer that frees a slot only on the delete event it hears leaks slot 0 in that crash, still caught with Claim declared (the restart that lost nothing hears the deletion)', { timeout: 60_000 }, async () => {
    expect(await declared('buggy', split(2))).toBe('same-end-state: end state differs from the fault-free run: ConfigMap default/slots: data["0"] is "default/a/<uid of Claim default/a>", "" in the fault-free run');
  });

  it("the leak fails convergence with the claimer's own predicate too, and the correct claimer's freed slot passes it (which slot is the path's business, a leaked one is not)", { timeout: 60_000 }, async () => {
    const converged = async (variant: 'correct' | 'buggy') => {
      const r = await check(claimer(variant), { runs: 1, seed: 1, faults: allFaults, properties: [convergence({ converged: slotsHeld })], corpus: { scenarios: [split(2)] }, shrink: false, determinism: false, coverage: false });
      return r.ok ? 'passed' : `${r.property}: ${r.summary}`;
    };
    expect(await converged('buggy')).toMatch(/^convergence: .*slot 0 is held for default\/a\/\S+, which is gone \(a leaked slot\)/);
    expect(await converged('correct')).toBe('passed');
  });

  it('the claimer that frees a slot only on the delete event it hears, down (crashed) when a was deleted, leaks slot 0: still caught', { timeout: 60_000 }, async () => {
    expect(await judge('buggy', [{ kind: 'crash-restart', nth: 2, params: { point: 'after-write' } }])).toBe('same-end-state: end state differs from the fault-free run: ConfigMap default/slots: data["0"] is "default/a/<uid of Claim default/a>", "" in the fault-free run');
  });
});
