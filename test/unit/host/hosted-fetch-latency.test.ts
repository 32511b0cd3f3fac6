import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defineProgram, fakeRestService, simulate, type Scenario } from '../../../src/index.js';
import type { World } from '../../../src/harness/world.js';
import { realSetImmediate } from '../../../src/sim/globals.js';

/**
 * A hosted program's global `fetch` to a fake service with latency: no kernel task waits on it,
 * so the answer must wake the program at the virtual time the latency ends. It used not to: the
 * program heard it whenever the kernel next happened to give the host a turn (its periodic look
 * at the wall clock, every so many loop rounds, or the program's next timer). How many rounds the
 * loop had made depends on real work it waited for (a module loading, real I/O), so under host
 * load the same scenario answered at different virtual times: a false `determinism` failure.
 */
const entry = fileURLToPath(new URL('./programs/fetch-latency.ts', import.meta.url));
const program = defineProgram({ entry, for: 'ConfigMap', name: 'p' });
const LATENCY = 50;
const downstream = () => ({ services: [fakeRestService({ baseUrl: 'https://store.example', latencyMs: LATENCY, idempotencyKeyHeader: 'Idempotency-Key' })] });
const scenario: Scenario = { seed: 1, controllers: [{ name: 'p' }], initialObjects: [], workload: [], faults: { events: [], background: [] }, options: { faultWindowMs: 3_000, settleMs: 3_000 } };

/**
 * The run, after the kernel's loop went round `extra` more times waiting on real async work (a
 * hold on one real macrotask at virtual 100 ms, 200 ms, ...): what a slow module load or a file
 * read does under host load. Nothing of it is in the simulation, so the trace must not change.
 * The wall clock stands still (the kernel looks at it every so many rounds, as in a check, but
 * never yields to the host for it), and an event every 7 ms gives the loop rounds to count.
 */
async function runWith(extra: number) {
  const install = [
    (w: World) => {
      for (let i = 0; i < extra; i++) w.kernel.at(100 * (i + 1), () => w.kernel.hold(new Promise<void>((r) => realSetImmediate(r))));
      const tick = (): void => void w.kernel.after(7, tick);
      w.kernel.at(0, tick);
      return () => {};
    },
  ];
  const { run } = await simulate(scenario, { controllers: [program], downstream, tailMs: 0, install, wallClock: () => 0 });
  return run;
}

describe('a hosted program fetching from a fake service with latency', () => {
  it('hears every answer when the latency ends, on the simulated clock', async () => {
    const run = await runWith(0);
    expect(run.escapes).toEqual([]);
    const requests = run.trace.filter((e) => e.type === 'downstream:request');
    expect(requests.length).toBeGreaterThanOrEqual(8);
    for (const r of requests) expect({ url: r['url'], took: r.t - Number(r['start']) }).toEqual({ url: r['url'], took: LATENCY });
    const logs = run.trace.filter((e) => e.type === 'log').map((e) => String(e['message']));
    expect(logs.slice(0, 3)).toEqual([`#0: list 200 (0) after ${LATENCY} ms, create 201 after ${LATENCY} ms`, `#1: list 200 (1) after ${LATENCY} ms, create 201 after ${LATENCY} ms`, `#2: list 200 (2) after ${LATENCY} ms, create 201 after ${LATENCY} ms`]);
  });

  it("records each request as the program replica's, not an unknown actor", async () => {
    // properties group requests and match crashes by actor (honours-retry-after excuses an early
    // retry by a replica that crashed in between; no-duplicate-side-effects names who created)
    const run = await runWith(0);
    const actors = new Set(run.trace.filter((e) => e.type === 'downstream:request').map((e) => e['actor']));
    expect([...actors]).toEqual(['controller:p/0']);
  });

  it('gives the same trace however often the kernel waited on real work', async () => {
    const hashes = new Set<string>();
    for (const extra of [0, 1, 2, 3]) hashes.add((await runWith(extra)).hash);
    expect([...hashes]).toHaveLength(1);
  });
});
