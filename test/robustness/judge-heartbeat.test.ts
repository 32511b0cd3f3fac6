import { describe, expect, it } from 'vitest';
import { check, defineProperty, type CheckOptions } from '../../src/index.js';
import { writer } from './writer-fixture.js';

/**
 * The CLI's watchdog ends a worker that sends nothing for `--watchdog` ms of busy wall time and
 * fails its scenario as hung. Simulation steps send heartbeats, but judging a run is synchronous
 * work outside any simulation: a long run's judges (15 s of CPU for no-hot-loop on rt46's
 * deploy-putter run 20 before its scan was made linear) went silent for longer than the watchdog
 * allows on a loaded host, so a slow legitimate run could fail as a hang (h47). The harness now
 * beats after each property's verdict. Deterministic: the wall clock is frozen (no host yield,
 * so no beat from the simulation), and the test counts beats between two judges.
 */

describe('the harness beats between property judgements (h47)', () => {
  it('a heartbeat comes after each judge, with no simulation step in between', async () => {
    let beats = 0;
    const seen: [string, number][] = [];
    const noting = (name: string) => defineProperty<Record<string, never>>({ name, description: `notes the beats before it judges (${name})`, defaults: {}, judge: () => (seen.push([name, beats]), { ok: true }) })();
    const r = await check(writer, { runs: 1, seed: 1, faults: [], determinism: false, properties: [noting('first'), noting('second')], wallClock: () => 0, onHeartbeat: () => void beats++ } as CheckOptions);
    expect(r.ok).toBe(true);
    const first = seen.find(([n]) => n === 'first')!;
    const second = seen.find(([n]) => n === 'second')!;
    expect(second[1]).toBeGreaterThan(first[1]);
  });
});
