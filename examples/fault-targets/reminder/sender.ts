import { defineController, fromVirtualTimestamp, isStoreError, type ControllerDefinition, type ReconcileContext, type ReconcileResult } from '../../../src/index.js';
import { RESYNC_MS } from '../resync.js';
import { MAIL, REMINDER, type ReminderSpec, type ReminderStatus } from './reminder.js';

/** Sends the mails due, one slot at a time, each claimed by counting it first; `guarded`: the count is written with the resourceVersion it was read at. */
function sendDue(guarded: boolean) {
  return async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
    // live: the count another replica just wrote may not be in our cache yet
    let r = await ctx.client.tryGet<ReminderSpec, ReminderStatus>(REMINDER, ctx.key, { live: true });
    if (!r || r.metadata.deletionTimestamp !== undefined) return;
    const every = Math.max(1000, r.spec.everyMs);
    const created = fromVirtualTimestamp(r.metadata.creationTimestamp);
    const now = ctx.clock.now();
    const due = Math.min(r.spec.times, Math.floor((now - created) / every));
    while ((r.status.sent ?? 0) < due) {
      const slot: number = (r.status.sent ?? 0) + 1;
      if (guarded) {
        try {
          // 409 when another replica counted since we read: the retry reads again and finds the slot taken
          r = await ctx.client.updateStatus({ ...r, status: { sent: slot } });
        } catch (err) {
          if (isStoreError(err, 'Conflict')) return { requeue: true };
          throw err;
        }
      } else {
        // BUG: a merge patch with no precondition: a replica that read the same count "wins" too, and sends again
        r = await ctx.client.patchStatus<ReminderSpec, ReminderStatus>(REMINDER, ctx.key, { status: { sent: slot } });
      }
      const res = await ctx.fetch(`${MAIL}/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ reminder: r.metadata.uid, slot, to: r.spec.to }) });
      // the slot is counted: a failed send is not retried (at most once)
      if (!res.ok) ctx.log.error('mail not sent', { slot, status: res.status });
    }
    return due < r.spec.times ? { requeueAfter: created + (due + 1) * every - now } : undefined;
  };
}

const define = (name: string, guarded: boolean): ControllerDefinition =>
  defineController({ name, for: REMINDER, leaderElection: false, resyncPeriodMs: RESYNC_MS, reconcile: sendDue(guarded) });

/**
 * Correct: runs without leader election (every replica reconciles) and survives it: each mail
 * is claimed by an update of `status.sent` with the resourceVersion read, so of two replicas
 * that read the same count one wins and the other, on its 409, re-reads and finds the slot taken.
 */
export const reminderCorrect = define('reminder-correct', true);

/** Buggy: the same, but the count is a merge patch without the resourceVersion it read: both replicas claim the slot and both send. */
export const reminderBuggy = define('reminder-buggy', false);
