import { defineController, type NewObject, type ReconcileContext, type StoredObject, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import { specStatusOwnership } from '../../properties/spec-status-ownership.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { RESYNC_MS } from './_shared/resync.js';
import { sameJson } from '../bug-zoo/shared/same-json.js';

/**
 * A CA injector, cert-manager's cainjector in small: a cluster-scoped `WebhookConfiguration`
 * (shaped like a MutatingWebhookConfiguration: a list of webhooks, each calling a Service, each
 * with a `clientConfig.caBundle` the API server trusts that Service's certificate with) annotated
 * `example.com/inject-ca-from: <namespace>/<secret>` gets the Secret's `data["ca.crt"]` copied
 * into the caBundle of every one of its webhooks. The CA rotates (the Secret is rewritten by
 * whatever issues it), so the controller watches both kinds: a Secret event is mapped to every
 * configuration whose annotation names that Secret (from the informer's cache of configurations,
 * as cainjector's indexer does), a configuration event to itself. Many configurations may share
 * one Secret; a configuration may name a Secret that does not exist yet, and is injected once it
 * appears (its ADDED event maps to it).
 *
 * It owns exactly the caBundle fields of annotated configurations: a configuration without the
 * annotation, or whose Secret is missing or holds no `ca.crt`, is left as it is (a bundle already
 * there stays: taking it away would break a webhook that works), and every other field of the
 * webhooks (paths, failure policies, webhooks the user adds or removes) is the user's. It writes
 * only when a bundle differs, with an update carrying the resourceVersion it read: the
 * configuration comes from the cache, and a cache behind a user's edit gets a 409 instead of
 * writing the webhooks list of before that edit back (a merge patch of a list replaces the whole
 * list). The Secret comes from the cache too: a cache behind a rotation writes the old CA, and
 * the rotation's own event, arriving with the cache's catching up, brings the new one.
 *
 * Its buggy twin writes with a merge patch built from its cached copy and no precondition, as
 * controller-runtime's `client.MergeFrom` without `MergeFromWithOptimisticLock` does for a custom
 * kind: the patch carries the whole webhooks list, so a cache that has not yet seen the user's
 * edit of a webhook (a path, a failure policy) silently reverts it, and nothing brings it back.
 */
export const WEBHOOK_CONFIG = 'WebhookConfiguration';
export const INJECT_FROM = 'example.com/inject-ca-from';
const CA_KEY = 'ca.crt';

type Webhook = {
  name: string;
  clientConfig: { service: { namespace: string; name: string; path: string }; caBundle?: string };
  failurePolicy: 'Fail' | 'Ignore';
};
interface ConfigSpec {
  webhooks: Webhook[];
}

/** The Secret an object's annotation names, as a key; undefined when there is none or it is not `<namespace>/<name>`. */
export function sourceOf(o: StoredObject<unknown, unknown>): string | undefined {
  const v = o.metadata.annotations[INJECT_FROM];
  if (typeof v !== 'string') return undefined;
  const parts = v.split('/');
  return parts.length === 2 && parts[0] !== '' && parts[1] !== '' ? v : undefined;
}

/** The CA a Secret holds (base64, as the API carries both `data` and `caBundle`), or undefined. */
function caOf(secret: StoredObject | undefined): string | undefined {
  const ca = (secret?.['data'] as Record<string, unknown> | undefined)?.[CA_KEY];
  return typeof ca === 'string' && ca !== '' ? ca : undefined;
}

/** The webhooks with `ca` as every caBundle, everything else as it is. */
function injected(webhooks: readonly Webhook[], ca: string): Webhook[] {
  return webhooks.map((w) => ({ ...w, clientConfig: { ...w.clientConfig, caBundle: ca } }));
}

function define(mistake: 'none' | 'unlocked-patch') {
  async function reconcile(ctx: ReconcileContext): Promise<void> {
    const cfg = await ctx.client.tryGet<ConfigSpec>(WEBHOOK_CONFIG, ctx.key);
    if (!cfg || cfg.metadata.deletionTimestamp !== undefined) return;
    const from = sourceOf(cfg);
    if (from === undefined) return; // not ours to touch
    const ca = caOf(await ctx.client.tryGet('Secret', from));
    if (ca === undefined) return; // no CA (yet): the Secret's event brings this back; a bundle already there stays
    const webhooks = Array.isArray(cfg.spec.webhooks) ? cfg.spec.webhooks : [];
    const want = injected(webhooks, ca);
    if (sameJson(webhooks, want)) return;
    if (mistake === 'unlocked-patch') {
      // BUG (unlocked-patch): the whole list, from the cached copy, with no precondition
      await ctx.client.patch(WEBHOOK_CONFIG, ctx.key, { spec: { webhooks: want as never } });
      return;
    }
    await ctx.client.update({ ...cfg, spec: { ...cfg.spec, webhooks: want } });
  }
  return defineController({
    name: 'ca-injector',
    for: WEBHOOK_CONFIG,
    // a Secret's change concerns every configuration injected from it
    watches: [
      {
        kind: 'Secret',
        map: (s, view) => {
          const key = `${s.metadata.namespace ?? ''}/${s.metadata.name}`;
          return view
            .list(WEBHOOK_CONFIG)
            .filter((c) => sourceOf(c) === key)
            .map((c) => c.metadata.name);
        },
      },
    ],
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    reconcile,
  });
}

export const caInjectorController = define('none');

/** Converged, for the injector: every annotated configuration whose Secret holds a CA carries it in every webhook. */
export function caInjected(view: WorldView): true | string {
  for (const c of view.list(WEBHOOK_CONFIG)) {
    if (c.metadata.deletionTimestamp !== undefined) continue;
    const from = sourceOf(c);
    if (from === undefined) continue;
    const ca = caOf(view.get('Secret', from));
    if (ca === undefined) continue;
    for (const w of ((c.spec as unknown as ConfigSpec).webhooks ?? [])) {
      if (w.clientConfig?.caBundle !== ca) return `webhook ${w.name} of ${c.metadata.name} trusts ${w.clientConfig?.caBundle ?? 'no CA'}, Secret ${from} holds ${ca}`;
    }
  }
  return true;
}

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const pem = (name: string) => b64(`-----BEGIN CERTIFICATE-----\n${name}\n-----END CERTIFICATE-----\n`);
const NS = 'webhook-system';
const secret = (name: string, ca: string): NewObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: NS }, type: 'kubernetes.io/tls', data: { [CA_KEY]: pem(ca), 'tls.crt': pem(`${name}-serving`), 'tls.key': b64(`${name}-key`) } });
const hook = (name: string, service: string, path: string, failurePolicy: 'Fail' | 'Ignore' = 'Fail'): Webhook => ({ name, clientConfig: { service: { namespace: NS, name: service, path } }, failurePolicy });
const config = (name: string, from: string, webhooks: Webhook[]): NewObject => ({ apiVersion: 'admissionregistration.example.com/v1', kind: WEBHOOK_CONFIG, metadata: { name, annotations: { [INJECT_FROM]: from } }, spec: { webhooks } as never });

export const caInjector: FalsePositiveCase = {
  name: 'ca-injector',
  description: "cert-manager cainjector style: a CA bundle is copied from a Secret's ca.crt into every webhook of each WebhookConfiguration annotated inject-ca-from that Secret; Secret events map to every configuration naming it; only differing bundles are written, with the resourceVersion read",
  controllers: [caInjectorController],
  options: {
    // the CA Secrets, and one configuration waiting for a Secret that appears later; the CA rotates twice
    story: {
      objects: [secret('serving-ca', 'CA-1'), secret('metrics-ca', 'MCA-1'), config('audit', `${NS}/audit-ca`, [hook('audit.example.com', 'audit', '/audit')])],
      actions: [
        { at: 4000, type: 'apply', object: secret('serving-ca', 'CA-2') },
        { at: 7000, type: 'create', object: secret('audit-ca', 'ACA-1') },
        { at: 11_000, type: 'apply', object: secret('metrics-ca', 'MCA-2') },
        { at: 16_000, type: 'apply', object: secret('serving-ca', 'CA-3') },
      ],
      jitterMs: 1000,
    },
    // the configurations teams create, edit (paths, failure policies, webhooks added) and delete; one is not injected at all
    objects: [
      {
        kind: WEBHOOK_CONFIG,
        namespace: '',
        name: 'policy',
        annotations: { [INJECT_FROM]: `${NS}/serving-ca` },
        spec: [
          { webhooks: [hook('pods.policy.example.com', 'policy', '/mutate-pods')] },
          { webhooks: [hook('pods.policy.example.com', 'policy', '/mutate-pods', 'Ignore'), hook('deployments.policy.example.com', 'policy', '/mutate-deployments')] },
          { webhooks: [hook('pods.policy.example.com', 'policy', '/v2/mutate-pods')] },
        ],
      },
      {
        kind: WEBHOOK_CONFIG,
        namespace: '',
        name: 'metrics',
        annotations: { [INJECT_FROM]: `${NS}/metrics-ca` },
        spec: [{ webhooks: [hook('metrics.example.com', 'metrics', '/scrape')] }, { webhooks: [hook('metrics.example.com', 'metrics', '/scrape', 'Ignore')] }],
      },
      { kind: WEBHOOK_CONFIG, namespace: '', name: 'manual', spec: [{ webhooks: [{ ...hook('manual.example.com', 'manual', '/validate'), clientConfig: { service: { namespace: NS, name: 'manual', path: '/validate' }, caBundle: pem('hand-made') } }] }] },
    ],
    maxObjects: 3,
  },
  // the caBundle fields are the injector's to write (cainjector writes them into the user's object by design); arrays are one path
  properties: [convergence({ converged: caInjected }), specStatusOwnership({ allowSpecPaths: ['spec.webhooks'] })],
  buggy: {
    controllers: [define('unlocked-patch')],
    caughtBy: ['same-end-state', 'recovery'],
    // a user's edit, then a reconcile (a rotation, a second edit) on a cache behind it: several configurations and edits
    world: { maxObjects: 3, maxActions: 6 },
    seed: 4,
    why: 'it writes the bundles with a merge patch of the whole webhooks list built from its cached copy, without a resourceVersion precondition: a cache behind a user\'s edit of a webhook reverts that edit for good',
  },
};
