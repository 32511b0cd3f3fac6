import type { NewObject, Story } from '../../src/index.js';
import type { FalsePositiveCase } from '../false-positives/_shared/case.js';
import { MAILING_LIST, mailingList } from '../false-positives/mailing-list.js';
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

export const falsePositiveStories: readonly StoryCase[] = [
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
