import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { defineProgram, simulate, type Scenario } from '../../../src/index.js';
import { programActs } from '../../../src/harness/run-guards.js';

/**
 * The program-acts run guard (stop 40): a hosted program that never writes is checked vacuously,
 * every property holding of a world it never touches. Found by a reach hunt: a leader elector
 * stamping its Lease with a plain Date passed 30 of 30 runs, though a real cluster refuses its
 * every Lease (400) and it would never lead.
 */
const echoes = { resources: [{ group: 'example.com', version: 'v1', kind: 'Echo', plural: 'echoes' }] };
const elector = (micro: boolean) => defineProgram({ entry: 'test/unit/host/programs/date-lease.ts', for: 'Echo', name: micro ? 'micro' : 'date', ...(micro ? { args: ['--micro'] } : {}), ...echoes });
const scenario = (name: string, faults: Scenario['faults'] = { events: [], background: [] }): Scenario => ({
  seed: 3,
  controllers: [{ name }],
  initialObjects: [],
  workload: [{ at: 0, type: 'create', object: { apiVersion: 'example.com/v1', kind: 'Echo', metadata: { name: 'echo-0', namespace: 'default' }, spec: { message: 'hello' } } }],
  faults,
  options: { faultWindowMs: 5_000, settleMs: 10_000 },
});

describe('program-acts: a hosted program that never writes fails the run, one that acts passes', () => {
  it('fires on the elector whose Lease the API server refuses, naming the refused request and the fix', async () => {
    const { run } = await simulate(scenario('date'), { controllers: [elector(false)], tailMs: 0 });
    const v = programActs.judge(run, undefined);
    expect(v.ok).toBe(false);
    if (v.ok) return;
    expect(v.summary).toMatch(/^the program date never acted: 1 Echo object existed, and it sent \d+ requests to the API server, none of them a write of anything but its Lease and Events$/);
    expect(v.explanation).toContain('POST /apis/coordination.k8s.io/v1/namespaces/default/leases was refused with 400');
    expect(v.explanation).toContain('new V1MicroTime()');
  });

  it('stays quiet on the same elector stamping MicroTimes, also when API errors refuse its writes while faults act', async () => {
    const ok = await simulate(scenario('micro'), { controllers: [elector(true)], tailMs: 0 });
    expect(ok.run.finalObjects.find((o) => o.kind === 'Echo')?.status).toEqual({ echo: 'hello' });
    expect(programActs.judge(ok.run, undefined).ok).toBe(true);
    const refused = await simulate(scenario('micro', { events: [], background: [{ kind: 'api-error', rate: 0.9, params: { status: 500 } }] }), { controllers: [elector(true)], tailMs: 0 });
    expect(refused.run.trace.some((e) => e.type === 'fault:inject' && e['kind'] === 'api-error')).toBe(true);
    expect(programActs.judge(refused.run, undefined).ok).toBe(true);
  });

  it('judges only hosted programs, and only runs with objects of their kind', async () => {
    const empty = { ...scenario('date'), workload: [] };
    const { run } = await simulate(empty, { controllers: [elector(false)], tailMs: 0 });
    expect(programActs.judge(run, undefined).ok).toBe(true);
    const { programs: _, ...native } = run;
    expect(programActs.judge(native, undefined).ok).toBe(true);
  });

  it('does not count an object the user deleted again: a program rightly skips what is being deleted (a create and a Foreground delete at t=0, gone in 5 ms; stop 41)', async () => {
    const gone = { ...scenario('date'), workload: [...scenario('date').workload, { at: 0, type: 'delete', kind: 'Echo', key: 'default/echo-0', propagationPolicy: 'Foreground' }] } as Scenario;
    const { run } = await simulate(gone, { controllers: [elector(false)], tailMs: 0 });
    expect(run.writes.some((w) => w.actor === 'user' && w.verb === 'delete' && w.key === 'default/echo-0')).toBe(true);
    expect(programActs.judge(run, undefined).ok).toBe(true);
  });

  it('reaches its verdict on a program that does nothing at all, in a process nothing else keeps alive (red team rt48 I-1: exit 13)', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'test/unit/host/programs/run-idle.ts'], { encoding: 'utf8', timeout: 60_000 });
    expect({ status: r.status, out: r.stdout.trim() }, r.stderr).toEqual({ status: 0, out: 'FAIL the program idle never acted: 1 ConfigMap object existed, and it sent no request to the API server at all' });
  });
});
