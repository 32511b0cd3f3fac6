import { describe, expect, it } from 'vitest';
import { lastActions } from '../../../properties/_internals/last-actions.js';
import { timelineOf } from '../../../properties/_internals/timeline.js';
import type { RunRecord } from '../../../src/index.js';
import type { TraceEntry } from '../../../src/sim/trace.js';

const who = { controller: 'web', replica: 0 };
const runOf = (trace: TraceEntry[]) => ({ trace }) as unknown as RunRecord;

describe('lastActions for hosted programs (no reconciles: requests tell what they did)', () => {
  const trace: TraceEntry[] = [
    { t: 5, type: 'http:request', ...who, method: 'GET', path: '/apis/apps/v1/deployments', status: 200 },
    { t: 6, type: 'http:request', ...who, method: 'GET', path: '/apis/apps/v1/deployments?watch=true&resourceVersion=3', status: 200, watch: true },
    { t: 900, type: 'http:request', ...who, method: 'PATCH', path: '/apis/apps/v1/namespaces/default/deployments/web', status: 409 },
    { t: 950, type: 'http:request', ...who, method: 'PUT', path: '/apis/apps/v1/namespaces/shop/deployments/web', status: 200 },
  ];

  it('names the last request about the object, in its namespace, with its answer', () => {
    const s = lastActions(timelineOf(runOf(trace)), 'Deployment', 'default/web');
    expect(s).toContain('the last request about it was PATCH /apis/apps/v1/namespaces/default/deployments/web by the program web/0 at t=0.9 s (answered 409)');
    expect(s).toContain('no program ever wrote Deployment default/web');
    expect(s).not.toContain('reconciled');
  });

  it('says when no request ever named the object (lists and watches do not name it)', () => {
    const s = lastActions(timelineOf(runOf(trace)), 'Deployment', 'default/api');
    expect(s).toContain('no program ever sent a request naming Deployment default/api');
  });

  it('keeps the reconcile wording for native controllers', () => {
    const s = lastActions(timelineOf(runOf([])), 'Deployment', 'default/web');
    expect(s).toContain('no controller ever reconciled default/web');
  });
});

describe('lastActions names a retry the rate-limited queue put off past the bound', () => {
  const trace: TraceEntry[] = [
    { t: 26_000, type: 'reconcile:start', ...who, key: 'default/web', n: 14 },
    { t: 26_500, type: 'reconcile:end', ...who, key: 'default/web', n: 14, result: 'error', error: 'HttpError: 503', retryInMs: 40_960 },
  ];

  it('says how long the key waits on its backoff and how to shorten it', () => {
    const s = lastActions(timelineOf(runOf(trace)), 'Widget', 'default/web', 60_000);
    expect(s).toContain('(failed: HttpError: 503');
    expect(s).toContain('the rate-limited queue put its retry off 40.96 s, to t=67.46 s');
    expect(s).toContain('rateLimiter.maxDelayMs');
  });

  it('says nothing of a retry due before the bound', () => {
    const s = lastActions(timelineOf(runOf(trace)), 'Widget', 'default/web', 70_000);
    expect(s).not.toContain('put its retry off');
  });
});
