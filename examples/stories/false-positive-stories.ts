import type { NewObject, Story } from '../../src/index.js';
import type { FalsePositiveCase } from '../false-positives/_shared/case.js';
import { BACKUP_SCHEDULE, backupSchedule } from '../false-positives/backup-schedule.js';
import { CANARY, canaryRollout } from '../false-positives/canary-rollout.js';
import { MANAGED_CERT, certRenewal } from '../false-positives/cert-renewal.js';
import { CRON_TASK, cronTask } from '../false-positives/cron-task.js';
import { API_TOKEN, credentialRotation } from '../false-positives/credential-rotation.js';
import { WORKER_GROUP, gracefulScaledown } from '../false-positives/graceful-scaledown.js';
import { MAILING_LIST, mailingList } from '../false-positives/mailing-list.js';
import { NODE, nodeDrainer } from '../false-positives/node-drainer.js';
import { WAVE, pausedWave } from '../false-positives/paused-wave.js';
import { SANDBOX, sandboxTtl } from '../false-positives/sandbox-ttl.js';
import { STORAGE_USER, storageUser } from '../false-positives/storage-user.js';
import { VOLUME, volumeResizer } from '../false-positives/volume-resizer.js';
import { WEBHOOK, webhookSubscription } from '../false-positives/webhook-subscription.js';

/**
 * Controllers of the false-positive corpus checked through a story: the objects a user applies,
 * by their real names, and what the user then does to them (edits, a revert to the manifest, a
 * delete), with every fault kind generated around it. Each must stay quiet on every property:
 * `test/e2e/story-false-positives.test.ts` (100 runs each) and `bench/hunt-false-positives.ts
 * --stories` (1,000).
 */
export interface StoryCase {
  /** The corpus case: controllers, environment, downstream, configured properties. Its generated `objects` are not used. */
  case: FalsePositiveCase;
  story: Story;
}

/** The case's check options for its story: no generated objects (the story has its own). */
export function storyOptions(c: StoryCase): Omit<FalsePositiveCase['options'], 'objects' | 'maxObjects'> & { story: Story } {
  const { objects: _objects, maxObjects: _max, ...rest } = c.case.options;
  return { ...rest, story: c.story };
}

const manifest = (kind: string, name: string, spec: Record<string, unknown>, metadata: Partial<NewObject['metadata']> = {}): NewObject => ({ apiVersion: 'example.com/v1', kind, metadata: { name, namespace: 'default', ...metadata }, spec: spec as NewObject['spec'] });
const key = (name: string) => `default/${name}`;
const touched = { metadata: { labels: { 'example.com/touched': 'yes' } } };

const dev = manifest(MAILING_LIST, 'dev', { address: 'dev@example.com', members: ['ana@example.com', 'bo@example.com'] });
const uploads = manifest(STORAGE_USER, 'uploader', { bucket: 'uploads', access: 'write' });
const db = manifest(VOLUME, 'db', { sizeGi: 1 });
const hook = manifest(WEBHOOK, 'deploys', { url: 'https://ci.example/hook', events: ['push'] });
const demo = manifest(SANDBOX, 'demo', { image: 'preview:1', ttlMs: 20_000 });

const untimedStories: readonly StoryCase[] = [
  {
    // the member set changes, then the address, then the manifest is applied again (a revert through two changes)
    case: mailingList,
    story: {
      objects: [dev],
      actions: [
        { at: 3000, type: 'patch', kind: MAILING_LIST, key: key('dev'), patch: { spec: { members: ['bo@example.com', 'cy@example.com'] } } },
        { at: 6000, type: 'patch', kind: MAILING_LIST, key: key('dev'), patch: { spec: { address: 'eng@example.com' } } },
        { at: 9000, type: 'apply', object: dev },
      ],
      jitterMs: 500,
    },
  },
  {
    // write access is reduced to read, the object is labelled, then write access comes back
    case: storageUser,
    story: {
      objects: [uploads],
      actions: [
        { at: 3000, type: 'apply', object: manifest(STORAGE_USER, 'uploader', { bucket: 'uploads', access: 'read' }) },
        { at: 5000, type: 'patch', kind: STORAGE_USER, key: key('uploader'), patch: touched },
        { at: 8000, type: 'apply', object: uploads },
      ],
      jitterMs: 500,
    },
  },
  {
    // the volume grows to 2 Gi, then the manifest asks for 1 Gi again (storage only grows)
    case: volumeResizer,
    story: {
      objects: [db],
      actions: [
        { at: 3000, type: 'apply', object: manifest(VOLUME, 'db', { sizeGi: 2 }) },
        { at: 5000, type: 'patch', kind: VOLUME, key: key('db'), patch: touched },
        { at: 8000, type: 'apply', object: db },
      ],
      jitterMs: 500,
    },
  },
  {
    // the hook moves to another URL with more events, then back
    case: webhookSubscription,
    story: {
      objects: [hook],
      actions: [
        { at: 3000, type: 'apply', object: manifest(WEBHOOK, 'deploys', { url: 'https://ci.example/hook2', events: ['push', 'tag'] }) },
        { at: 5000, type: 'patch', kind: WEBHOOK, key: key('deploys'), patch: touched },
        { at: 8000, type: 'apply', object: hook },
      ],
      jitterMs: 500,
    },
  },
  {
    // a new preview image, a label, and the old image again, all before the sandbox's TTL
    case: sandboxTtl,
    story: {
      objects: [demo],
      actions: [
        { at: 3000, type: 'apply', object: manifest(SANDBOX, 'demo', { image: 'preview:2', ttlMs: 20_000 }) },
        { at: 5000, type: 'patch', kind: SANDBOX, key: key('demo'), patch: touched },
        { at: 8000, type: 'apply', object: demo },
      ],
      jitterMs: 500,
    },
  },
];

// Timed cases: each story's actions land just before, at or just after a time boundary of the
// controller (a grace period's end, a renewal, a schedule slot and its deadline, a rollout step, a
// rotation window), the jitter small enough to keep them there.
const consumers = manifest(WORKER_GROUP, 'consumers', { replicas: 3, image: 'consumer:1' });
const site = manifest(MANAGED_CERT, 'site', { domain: 'shop.example.com' });
const nightly = manifest(CRON_TASK, 'nightly', { everyMs: 10_000, startingDeadlineMs: 3000, runMs: 2000, historyLimit: 1, image: 'report:1' });
const orders = manifest(BACKUP_SCHEDULE, 'orders', { database: 'orders', everyMs: 10_000, keep: 2 });
const web = manifest(CANARY, 'web', { image: 'web:1', replicas: 4, steps: [10, 50, 100], stepMs: 2000 });
const fleet = manifest(WAVE, 'fleet', { image: 'app:1', paused: false });
const ci = manifest(API_TOKEN, 'ci', { rotateEverySeconds: 15, scope: 'read' });
const node0 = { apiVersion: 'example.com/v1', kind: NODE, metadata: { name: 'node-0' }, spec: { unschedulable: false } } as NewObject;
const podOn = (name: string, node: string, annotations: Record<string, string> = {}): NewObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', annotations }, spec: { nodeName: node, containers: [{ name: 'app', image: 'app:1' }] } as NewObject['spec'] });

export const timedStories: readonly StoryCase[] = [
  {
    // scaled 3 → 1 (two members drain 15 s), scaled to 2 0.1 s before the grace ends (±0.3 s: either side of it), a new image 0.3 s after it (the drained member's delete), the manifest again
    case: gracefulScaledown,
    story: {
      objects: [consumers],
      actions: [
        { at: 2000, type: 'patch', kind: WORKER_GROUP, key: key('consumers'), patch: { spec: { replicas: 1 } } },
        { at: 16_900, type: 'patch', kind: WORKER_GROUP, key: key('consumers'), patch: { spec: { replicas: 2 } } },
        { at: 17_300, type: 'patch', kind: WORKER_GROUP, key: key('consumers'), patch: { spec: { image: 'consumer:2' } } },
        { at: 24_000, type: 'apply', object: consumers },
      ],
      jitterMs: 300,
    },
  },
  {
    // at the first renewal (15 s, 5 s before expiry) the domain changes 50 ms before it, goes back to the manifest while that issue is in flight, and the cert is recreated (same name, new uid) while the reissue is in flight
    case: certRenewal,
    story: {
      objects: [site],
      actions: [
        { at: 14_950, type: 'apply', object: manifest(MANAGED_CERT, 'site', { domain: 'www.example.com' }) },
        { at: 15_030, type: 'apply', object: site },
        { at: 15_130, type: 'recreate', kind: MANAGED_CERT, key: key('site') },
      ],
      jitterMs: 50,
    },
  },
  {
    // a new image 0.3 s before slot 1 (10 s; ±0.3 s up to the tick), the period changed at slot 1's starting deadline (13 s), the manifest applied again exactly at slot 2's tick (20 s)
    case: cronTask,
    story: {
      objects: [nightly],
      actions: [
        { at: 9_700, type: 'patch', kind: CRON_TASK, key: key('nightly'), patch: { spec: { image: 'report:2' } } },
        { at: 13_000, type: 'patch', kind: CRON_TASK, key: key('nightly'), patch: { spec: { everyMs: 15_000 } } },
        { at: 20_000, type: 'apply', object: nightly },
      ],
      jitterMs: 300,
    },
  },
  {
    // a new database 0.2 s before slot 1 (10 s), fewer Jobs kept 0.2 s after it (the slot-0 Job pruned as slot 1's is made), the manifest again exactly at slot 2 (20 s)
    case: backupSchedule,
    story: {
      objects: [orders],
      actions: [
        { at: 9_800, type: 'patch', kind: BACKUP_SCHEDULE, key: key('orders'), patch: { spec: { database: 'orders-replica' } } },
        { at: 10_200, type: 'patch', kind: BACKUP_SCHEDULE, key: key('orders'), patch: { spec: { keep: 1 } } },
        { at: 20_000, type: 'apply', object: orders },
      ],
      jitterMs: 200,
    },
  },
  {
    // cordoned and uncordoned 10 ms apart (a drain that comes late finds it schedulable), a Pod bound 10 ms later, cordoned again
    case: nodeDrainer,
    story: {
      objects: [node0, podOn('web', 'node-0'), podOn('pinned', 'node-0', { 'maintenance.example.com/skip-drain': 'true' })],
      actions: [
        { at: 3000, type: 'patch', kind: NODE, key: 'node-0', patch: { spec: { unschedulable: true } } },
        { at: 3010, type: 'patch', kind: NODE, key: 'node-0', patch: { spec: { unschedulable: false } } },
        { at: 3020, type: 'create', object: podOn('api', 'node-0') },
        { at: 8000, type: 'patch', kind: NODE, key: 'node-0', patch: { spec: { unschedulable: true } } },
      ],
      jitterMs: 5,
    },
  },
  {
    // the scope changes 0.2 s before the 15 s rotation window, back to the manifest 0.2 s after it, and again 0.1 s before the 30 s window (±0.15 s: either side)
    case: credentialRotation,
    story: {
      objects: [ci],
      actions: [
        { at: 14_800, type: 'patch', kind: API_TOKEN, key: key('ci'), patch: { spec: { scope: 'write' } } },
        { at: 15_200, type: 'apply', object: ci },
        { at: 29_900, type: 'patch', kind: API_TOKEN, key: key('ci'), patch: { spec: { scope: 'write' } } },
      ],
      jitterMs: 150,
    },
  },
  {
    // (this probe found the controller rewriting status.stepStartedAt on every pass while its canary was not yet
    // Available, its own status event bringing it back at once: ~1,000 status writes per virtual second; fixed there)
    // web:2, rolled back to the manifest 2 ms before the first step ends (6.1 s, ±0.3 s), web:2 again, and web:3 at the moment the second walk promotes (21.3 s)
    case: canaryRollout,
    story: {
      objects: [web],
      actions: [
        { at: 2000, type: 'apply', object: manifest(CANARY, 'web', { image: 'web:2', replicas: 4, steps: [10, 50, 100], stepMs: 2000 }) },
        { at: 6100, type: 'apply', object: web },
        { at: 9000, type: 'apply', object: manifest(CANARY, 'web', { image: 'web:2', replicas: 4, steps: [10, 50, 100], stepMs: 2000 }) },
        { at: 21_300, type: 'apply', object: manifest(CANARY, 'web', { image: 'web:3', replicas: 2, steps: [50, 100], stepMs: 1000 }) },
      ],
      jitterMs: 300,
    },
  },
];

export const falsePositiveStories: readonly StoryCase[] = [...untimedStories, ...timedStories];

/** Timed stories kept out of the story test and the hunt, each with why (`// PENDING:`). */
export const pendingStories: readonly StoryCase[] = [
  {
    // PENDING: same-end-state fails (story probe, 9/1,000 swarm runs, 7/1,000 guided): (1) a drift edit of a
    // shard the wave already moved is not repaired while the wave stays paused (the pause freezes every shard
    // write, by design); (2) a run late at two points (app:2's event lost until the pause; a 500 between
    // recording a step and moving the shard, which waits the step out until the second pause) ends with
    // shard-0 unmoved, where a fault-free controller slow at both points ends too; the benign variations model
    // one lag. Repros: scratch/repro-paused-wave-drift.ts, scratch/repro-paused-wave-two-lags.ts
    // app:2 walks a shard every 2 s; paused 50 ms before the third step (6.0 s, ±0.15 s), unpaused, paused again 50 ms before the last step (14.0 s)
    case: pausedWave,
    story: {
      objects: [fleet],
      actions: [
        { at: 2000, type: 'patch', kind: WAVE, key: key('fleet'), patch: { spec: { image: 'app:2' } } },
        { at: 5950, type: 'patch', kind: WAVE, key: key('fleet'), patch: { spec: { paused: true } } },
        { at: 12_000, type: 'patch', kind: WAVE, key: key('fleet'), patch: { spec: { paused: false } } },
        { at: 13_950, type: 'patch', kind: WAVE, key: key('fleet'), patch: { spec: { paused: true } } },
      ],
      jitterMs: 150,
    },
  },
];

