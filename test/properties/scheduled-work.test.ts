import { describe, expect, it } from 'vitest';
import { idempotence } from '../../properties/idempotence.js';
import { noHotLoop } from '../../properties/no-hot-loop.js';
import { BACKUP_SCHEDULE, backupScheduleController } from '../../examples/false-positives/backup-schedule.js';
import { defineController, job, podLifecycle, type ControllerDefinition, type Scenario } from '../../src/index.js';
import { expectFailure, expectQuiet, judgeScenario } from '../helpers/property-laws.js';

/**
 * idempotence and no-hot-loop on scheduled work: a CronJob-like controller that sleeps until the
 * next slot (`requeueAfter`) and then creates that slot's Job does work on an unchanged world by
 * design (the old false alarm of the corpus's backup-schedule: ~2 of 3 runs), as does its reaction
 * to the Job finishing. A controller that stamps status on every reconcile, or polls with a short
 * timer and writes each time, still fails.
 */
const options = { environment: [job, podLifecycle], tailMs: 10_000 };

/** A schedule created at t=0; the tail runs from t=35 s to t=45 s. */
function scheduleScenario(c: ControllerDefinition, everyMs: number): Scenario {
  return {
    seed: 3,
    controllers: [{ name: c.name }],
    environment: [{ name: 'job' }, { name: 'pod-lifecycle' }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: { kind: BACKUP_SCHEDULE, metadata: { name: 'orders', namespace: 'default' }, spec: { database: 'orders', everyMs, keep: 1 } } }],
    faults: { events: [], background: [] },
    options: { faultWindowMs: 5_000, settleMs: 30_000 },
  };
}

/** The backup schedule, also rewriting a heartbeat ConfigMap (which it does not watch) on every reconcile. */
const stamping = defineController({
  name: 'stamping-schedule',
  for: BACKUP_SCHEDULE,
  owns: ['Job'],
  async reconcile(ctx) {
    const r = await backupScheduleController.reconcile(ctx);
    const ref = { namespace: 'default', name: 'heartbeat' };
    const hb = await ctx.client.tryGet('ConfigMap', ref);
    const data = { at: String(ctx.clock.now()) };
    if (hb) await ctx.client.update({ ...hb, data });
    else await ctx.client.create({ kind: 'ConfigMap', metadata: ref, data });
    return r;
  },
});

/** Polls every 200 ms and stamps each poll: a timer loop, no schedule. */
const polling = defineController({
  name: 'polling-schedule',
  for: BACKUP_SCHEDULE,
  async reconcile(ctx) {
    const s = await ctx.client.tryGet<{ everyMs: number }, { polledAt?: number }>(BACKUP_SCHEDULE, ctx.key);
    if (!s) return;
    const since = ctx.clock.now() - (s.status.polledAt ?? -Infinity);
    if (since < 200) return { requeueAfter: 200 - since };
    await ctx.client.updateStatus({ ...s, status: { polledAt: ctx.clock.now() } });
    return { requeueAfter: 200 };
  },
});

describe('scheduled work (idempotence, no-hot-loop)', () => {
  it('a slot that comes in the tail: its Job, the old Job deleted and the success recorded are scheduled work', async () => {
    // slots at 0, 20 and 40 s: slot 2 starts in the tail
    const s = scheduleScenario(backupScheduleController, 20_000);
    const { verdict, run } = await judgeScenario(idempotence(), s, { controllers: [backupScheduleController], options });
    expectQuiet(verdict);
    expect(verdict.ok && verdict.stats?.['scheduledWrites']).toBeGreaterThanOrEqual(3);
    expect(run.writes.some((w) => w.verb === 'create' && w.key === 'default/orders-2' && w.t >= run.timing.tailStart)).toBe(true);
    expectQuiet((await judgeScenario(noHotLoop(), s, { controllers: [backupScheduleController], options })).verdict);
  });
  it('a Job that finishes in the tail: recording it is the world moving, not a re-reconcile', async () => {
    // slot 2 at 34 s, its Job still running when the tail begins at 35 s
    const s = scheduleScenario(backupScheduleController, 17_000);
    const { verdict, run } = await judgeScenario(idempotence(), s, { controllers: [backupScheduleController], options });
    expectQuiet(verdict);
    expect(run.writes.some((w) => w.actor === 'environment:job' && w.key === 'default/orders-2' && w.t > run.timing.tailStart)).toBe(true);
    // the success it records (status.lastSuccessfulSlot) is the one write
    expect(verdict.ok && verdict.stats?.['scheduledWrites']).toBe(1);
  });
  it('still fails a scheduling controller that rewrites an object on every reconcile', async () => {
    const v = expectFailure((await judgeScenario(idempotence(), scheduleScenario(stamping, 20_000), { controllers: [stamping], options })).verdict);
    expect(v.summary).toMatch(/^not idempotent/);
  });
  it('still fails a 200 ms poll that writes every time', async () => {
    const v = expectFailure((await judgeScenario(noHotLoop(), scheduleScenario(polling, 20_000), { controllers: [polling], options })).verdict);
    expect(v.summary).toMatch(/^hot loop/);
  });
});
