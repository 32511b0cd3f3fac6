import { defineController, isStoreError, type ControllerDefinition } from '../../src/index.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { controlledBy, controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A `TokenRequest` gets exactly one Secret, made with `generateName` (the server picks the name,
 * so a retried create makes a second one, not an AlreadyExists). It never takes "not in my cache"
 * for absent (a live list before every create), never retries a failed create blindly (a timed-out
 * create may have been applied: the next pass lists again), and keeps the oldest if two ever
 * exist. Written by the sixth red team (rt45); its twin trusts the cache and makes a second Secret.
 */
export const TOKEN_REQUEST = 'TokenRequest';
const TOKEN_LABEL = 'tokens.example.com/for';

interface TokenSpec {
  audience: string;
}
interface TokenStatus {
  secretName?: string;
  observedGeneration?: number;
}

function generateNameToken(mistake: 'none' | 'cached-absent'): ControllerDefinition {
  return defineController({
    name: 'token-secrets',
    for: TOKEN_REQUEST,
    owns: ['Secret'],
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    async reconcile(ctx) {
      const tr = await ctx.client.tryGet<TokenSpec, TokenStatus>(TOKEN_REQUEST, ctx.key);
      if (!tr || tr.metadata.deletionTimestamp !== undefined) return;
      const ns = tr.metadata.namespace ?? 'default';
      const sel = { namespace: ns, labelSelector: { matchLabels: { [TOKEN_LABEL]: tr.metadata.name } } };
      let mine = (await ctx.client.list('Secret', sel)).filter((s) => controlledBy(s, tr) && s.metadata.deletionTimestamp === undefined);
      // the buggy twin takes "not in my cache" for "absent"
      if (mine.length === 0 && mistake === 'none') mine = (await ctx.client.list('Secret', { ...sel, live: true })).filter((s) => controlledBy(s, tr) && s.metadata.deletionTimestamp === undefined);
      mine.sort((a, b) => a.metadata.creationTimestamp.localeCompare(b.metadata.creationTimestamp) || a.metadata.name.localeCompare(b.metadata.name));
      let keep = mine[0];
      if (!keep) {
        keep = await ctx.client.create({ kind: 'Secret', metadata: { generateName: `${tr.metadata.name}-token-`, namespace: ns, labels: { [TOKEN_LABEL]: tr.metadata.name }, ownerReferences: [controllerRef(tr)] }, stringData: { audience: tr.spec.audience } });
      }
      for (const extra of mine.slice(1)) {
        try {
          await ctx.client.delete('Secret', { namespace: ns, name: extra.metadata.name }, { preconditions: { uid: extra.metadata.uid } });
        } catch (err) {
          if (!isStoreError(err, 'NotFound') && !isStoreError(err, 'Conflict')) throw err;
        }
      }
      const want = Buffer.from(tr.spec.audience).toString('base64');
      const data = (keep as unknown as { data?: Record<string, string> }).data ?? {};
      if (data['audience'] !== want) await ctx.client.patch('Secret', { namespace: ns, name: keep.metadata.name }, { data: { audience: want } }, { resourceVersion: keep.metadata.resourceVersion });
      await writeStatus(ctx, tr, { secretName: keep.metadata.name, observedGeneration: tr.metadata.generation });
      return undefined;
    },
  });
}

export const generateNameTokenCase: FalsePositiveCase = {
  name: 'generate-name-token',
  description: 'one Secret per TokenRequest made with generateName: a live list before each create, no blind retry of a failed create, the oldest kept if two exist; two replicas with leader election',
  controllers: [generateNameToken('none')],
  options: { objects: { kind: TOKEN_REQUEST, name: 'ci', spec: [{ audience: 'api' }, { audience: 'vault' }] }, replicas: 2 },
  buggy: {
    controllers: [generateNameToken('cached-absent')],
    caughtBy: ['no-extra-destructive-actions'],
    why: 'it takes "not in my cache" for "absent": with the cache behind its own create it makes a second generateName Secret and then deletes it',
  },
};
