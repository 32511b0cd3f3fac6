import { describe, expect, it } from 'vitest';
import { workloadReady } from '../../src/environment/workload-ready.js';
import { condition, create, find, obj, ofKind, runEnv } from './helpers.js';

const env = [{ name: 'pod-lifecycle', params: { scheduleMs: 0, startMs: 500, readyMs: 100 } }, { name: 'job', params: { durationMs: 1000 } }];
const template = { spec: { containers: [{ name: 'migrate', image: 'migrate:1' }], restartPolicy: 'Never' } };

describe('job', () => {
  it('runs pods to completion, parallelism at a time, and reports Complete', async () => {
    const { run } = await runEnv({ environment: env, workload: [create(0, obj('Job', 'migrate', { completions: 3, parallelism: 2, template }))] });
    const pods = ofKind(run.finalObjects, 'Pod');
    expect(pods).toHaveLength(3);
    expect(pods.every((p) => p.status['phase'] === 'Succeeded' && p.metadata.labels['job-name'] === 'migrate')).toBe(true);
    expect(run.writes.filter((w) => w.verb === 'create' && w.kind === 'Pod').map((w) => w.t)).toEqual([0, 0, 1500]);
    const j = find(run.finalObjects, 'Job', 'default/migrate')!;
    expect(j.status).toMatchObject({ active: 0, succeeded: 3, failed: 0, completionTime: '2026-01-01T00:00:03.000Z', startTime: '2026-01-01T00:00:00.000Z' });
    expect(condition(j, 'Complete')).toEqual({ status: 'True', at: 3000 });
    expect(workloadReady(j)).toBe(true);
  });

  it('retries failed pods up to backoffLimit, then reports Failed', async () => {
    const failing = { ...template, metadata: { annotations: { 'steadystate.dev/exit-code': '1' } } };
    const { run } = await runEnv({ environment: env, workload: [create(0, obj('Job', 'bad', { backoffLimit: 2, template: failing }))] });
    const j = find(run.finalObjects, 'Job', 'default/bad')!;
    expect(j.status).toMatchObject({ failed: 3, succeeded: 0, active: 0 });
    expect(condition(j, 'Failed')).toMatchObject({ status: 'True' });
    expect(workloadReady(j)).toMatch(/^Job default\/bad: not Complete \(0 succeeded, 0 active, 3 failed\)$/);
  });
});
