import { describe, expect, it } from 'vitest';
import { peakQps, percentile, runStats, StatsCollector } from '../../../src/harness/stats.js';
import type { RecordedRequest } from '../../../src/harness/property.js';
import { fakeRun, write } from './helpers.js';

const req = (t: number, endpoint = 'GET /a'): RecordedRequest => ({ t, tEnd: t, actor: 'controller:c/0', method: 'GET', url: 'http://x/a', endpoint, status: 200, outcome: 'ok', mutating: false });

describe('percentile', () => {
  it('uses the nearest rank', () => {
    const xs = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(xs, 50)).toBe(50);
    expect(percentile(xs, 90)).toBe(90);
    expect(percentile(xs, 99)).toBe(99);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBe(0);
  });
});

describe('peakQps', () => {
  it('counts the busiest 1 s window per endpoint', () => {
    expect(peakQps([])).toBe(0);
    expect(peakQps([req(0), req(500), req(999), req(1000), req(5000)])).toBe(3);
    expect(peakQps([req(0, 'A'), req(1, 'B'), req(2, 'A')])).toBe(2);
  });
});

describe('runStats', () => {
  it('counts primary objects, reconciles and controller writes before the tail, and the latency from the last stimulus', () => {
    const run = fakeRun({
      writes: [write(0, 'user', { verb: 'create', uid: 'u1' }), write(1500, 'controller:c/0'), write(2500, 'controller:c/0'), write(2600, 'controller:c/0', { noop: true }), write(25_000, 'controller:c/0')],
      trace: [
        { t: 0, type: 'user:action', action: 'create' },
        { t: 1, type: 'reconcile:start' },
        { t: 1000, type: 'fault:inject', kind: 'event-loss' },
        { t: 1500, type: 'reconcile:start' },
        { t: 25_000, type: 'reconcile:start' },
      ],
    });
    expect(runStats(run, true)).toEqual({ objects: 1, reconciles: 2, writes: 3, latencyMs: 1500, peakQps: 0 });
    expect(runStats(run, false).latencyMs).toBeNull();
    expect(runStats(run, true, 42).latencyMs).toBe(42);
  });
});

describe('StatsCollector', () => {
  it('aggregates passing runs into percentiles and per-object rates', () => {
    const c = new StatsCollector();
    c.add({ objects: 2, reconciles: 10, writes: 4, latencyMs: 100, peakQps: 3 });
    c.add({ objects: 1, reconciles: 5, writes: 2, latencyMs: 300, peakQps: 1 });
    c.add({ objects: 1, reconciles: 50, writes: 50, latencyMs: null, peakQps: 9 });
    expect(c.result()).toEqual({ convergenceLatencyMs: { p50: 100, p90: 300, p99: 300, max: 300 }, reconcilesPerObject: 5, storeWritesPerObject: 2, peakDownstreamQps: 9, reconciles: 65 });
  });

  it('reports no latency when no run passed', () => {
    expect(new StatsCollector().result().convergenceLatencyMs).toBeNull();
  });
});
