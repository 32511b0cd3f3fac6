import { fakeRestService, type CreateDownstreamOptions, type DownstreamState, type FaultPlan, type NewObject, type RunRecord, type Scenario, type StoredObject } from '../../../src/index.js';

/**
 * The reminder fixture: a `Reminder` sends a mail (a POST to a mail API, which has no
 * idempotency keys: every POST is a mail) every `everyMs` after its creation, `times` times.
 * `status.sent` counts the mails sent, and is the claim: a replica writes the count before it
 * sends (at most once: a crash between the two loses that mail, it never sends it twice). The
 * controller declares `leaderElection: false` (every replica reconciles) and reads the Reminder
 * live, so a count another replica wrote a moment ago is seen: what is left is the race between
 * two replicas that both read the count before either wrote it. The correct one writes the count
 * with the resourceVersion it read (the loser gets a 409, re-reads, finds the slot taken); the
 * buggy one with a merge patch, last writer wins: both "win" and both send.
 */
export const REMINDER = 'Reminder';
export const MAIL = 'https://mail.example';

export interface ReminderSpec {
  everyMs: number;
  times: number;
  to: string;
}
export interface ReminderStatus {
  sent?: number;
}
/** What the mail API stores. */
export interface Mail {
  reminder: string;
  slot: number;
  to: string;
}

/** A fresh mail API per run (fake services hold state). */
export function mailDownstream(): CreateDownstreamOptions {
  return { services: [fakeRestService({ baseUrl: MAIL, name: 'mail', collections: ['messages'] })], timeoutMs: 5000 };
}

const reminder = (name: string, everyMs: number, times: number): NewObject => ({ kind: REMINDER, metadata: { name, namespace: 'default' }, spec: { everyMs, times, to: `${name}@example.com` } });

/** A stand-up reminder every 2 s (3 mails) from t=100, a retro reminder every 3 s (2 mails) from t=200. */
export function reminderScenario(controller: string, faults: FaultPlan, seed = 1): Scenario {
  return {
    seed,
    controllers: [{ name: controller }],
    initialObjects: [],
    workload: [
      { at: 100, type: 'create', object: reminder('standup', 2000, 3) },
      { at: 200, type: 'create', object: reminder('retro', 3000, 2) },
    ],
    faults,
    options: { faultWindowMs: 10_000, settleMs: 10_000 },
  };
}

/** Healthy when each Reminder's every mail was sent exactly once and counted. */
export function judgeReminders(run: RunRecord): true | string {
  const state = run.downstream as DownstreamState | null;
  const mail = state?.services.find((s) => s.name === 'mail');
  if (!mail) return 'the mail service is missing from the run';
  const mails = mail.resources.map((r) => r.body as unknown as Mail);
  const reminders = run.finalObjects.filter((o) => o.kind === REMINDER) as unknown as StoredObject<ReminderSpec, ReminderStatus>[];
  if (reminders.length === 0) return 'no Reminder objects at the end';
  for (const r of reminders) {
    for (let slot = 1; slot <= r.spec.times; slot++) {
      const n = mails.filter((m) => m.reminder === r.metadata.uid && m.slot === slot).length;
      if (n !== 1) return `Reminder ${r.metadata.name} sent mail ${slot} ${n} times, expected once`;
    }
    if (r.status.sent !== r.spec.times) return `Reminder ${r.metadata.name} counts ${String(r.status.sent)} mails sent, ${r.spec.times} were`;
  }
  return true;
}
