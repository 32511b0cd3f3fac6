// A plain lost-update counter under two active replicas (race44's "not caught" case), to see
// whether lists in key order change it: npx tsx scratch/realism45/poll.ts [buggy|correct]
// Votes are created at 1 s in reverse key order (vote-f … vote-a); the second replica starts
// around then. Each reconcile of a Vote adds its name to Poll.status.counted and deletes the Vote.
// The buggy twin writes the status by an unguarded merge patch (a lost update drops a name); the
// correct one by updateStatus with the resourceVersion it read (409: re-read).
import { defineController, simulate, ConflictError, NotFoundError, type Scenario } from '../../src/index.js';
import { secondReplica } from '../../faults/second-replica.js';

const which = process.argv[2] ?? 'buggy';
type PollStatus = { counted?: string[] };

const poll = defineController({
  name: 'poll',
  for: 'Vote',
  leaderElection: false,
  resyncPeriodMs: 5_000,
  async reconcile(ctx) {
    const vote = await ctx.client.tryGet('Vote', ctx.key, { live: true });
    if (!vote || vote.metadata.deletionTimestamp) return;
    const p = await ctx.client.get<Record<string, never>, PollStatus>('Poll', 'default/poll', { live: true });
    const counted = p.status.counted ?? [];
    if (!counted.includes(vote.metadata.name)) {
      const next = [...counted, vote.metadata.name];
      if (which === 'buggy') await ctx.client.patchStatus('Poll', 'default/poll', { status: { counted: next } });
      else {
        try {
          await ctx.client.updateStatus({ ...p, status: { counted: next } });
        } catch (err) {
          if (err instanceof ConflictError) return { requeue: true };
          throw err;
        }
      }
    }
    try {
      await ctx.client.delete('Vote', ctx.key, { preconditions: { uid: vote.metadata.uid } });
    } catch (err) {
      if (!(err instanceof NotFoundError) && !(err instanceof ConflictError)) throw err;
    }
    return undefined;
  },
});

const names = ['vote-f', 'vote-e', 'vote-d', 'vote-c', 'vote-b', 'vote-a'];
let lost = 0;
let total = 0;
const detail: string[] = [];
for (const at of [0, 500, 990, 995, 999, 1000, 1001, 1002, 1005, 1010]) {
  for (const roundTripMs of [0, 4, 10]) {
    for (const jitterMs of [0, 5, 20]) {
      const scenario: Scenario = {
        seed: 1,
        controllers: [{ name: 'poll' }],
        initialObjects: [{ apiVersion: 'example.com/v1', kind: 'Poll', metadata: { name: 'poll', namespace: 'default' }, spec: {} }],
        workload: names.map((name) => ({ at: 1000, type: 'create' as const, object: { apiVersion: 'example.com/v1', kind: 'Vote', metadata: { name, namespace: 'default' }, spec: {} } })),
        faults: { events: [{ kind: 'second-replica', at, params: { ...(roundTripMs ? { roundTripMs } : {}), ...(jitterMs ? { jitterMs } : {}) } }], background: [] },
        options: { faultWindowMs: 10_000, settleMs: 10_000 },
      };
      const { run } = await simulate(scenario, { controllers: [poll], faults: [secondReplica] });
      const p = run.finalObjects.find((o) => o.kind === 'Poll')!;
      const counted = ((p.status as PollStatus).counted ?? []).length;
      total++;
      if (counted !== names.length) {
        lost++;
        detail.push(`at ${at} rt ${roundTripMs} jitter ${jitterMs}: counted ${counted}/${names.length}`);
      }
    }
  }
}
for (const d of detail) console.log(d);
console.log(`${which}: ${lost}/${total} plans lose a vote`);
