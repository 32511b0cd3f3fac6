import { defineController, fakeRestService, isStoreError, type ControllerDefinition, type ReconcileResult, type StoredObject, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import { jsonApi, type Remote } from '../bug-zoo/shared/json-api.js';
import { apply } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { controlledBy, controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * The other direction of a sync: a `DirectorySync` imports the members of a group at an external
 * directory (an LDAP / SCIM / IdP API the cluster does not own) as `User` objects it owns, polling
 * every 20 s: it creates a User for a member that appeared, edits it when the directory renamed
 * them, and deletes the Users of members who left (uid precondition). The directory's answer is the
 * only authority for a deletion: a failed listing (a 5xx, a timeout, a 429) is an error that is
 * retried, never an empty group. Written by the eleventh red team (rt51).
 *
 * Its twin is the version that "keeps syncing while the directory is down": it logs the failed
 * listing and goes on with an empty member list, so one 503 deletes every User of the group (and the
 * next pass makes them again, with new uids: every RoleBinding or session keyed on them is gone).
 */
export const DIRECTORY_SYNC = 'DirectorySync';
export const DIRECTORY_API = 'https://directory.example/scim';
const LABEL = 'directory.example.com/sync';

interface SyncSpec {
  group: string;
}
interface SyncStatus {
  members?: number;
  observedGeneration?: number;
}
interface Member {
  group: string;
  login: string;
  displayName: string;
}
interface UserSpec {
  login: string;
  displayName: string;
}

const userName = (sync: StoredObject<unknown, unknown>, login: string): string => `${sync.metadata.name}-${login}`;

function directoryImport(mistake: 'none' | 'outage-is-empty'): ControllerDefinition {
  return defineController({
    name: 'directory-import',
    for: DIRECTORY_SYNC,
    owns: ['User'],
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    async reconcile(ctx): Promise<ReconcileResult> {
      const sync = await ctx.client.tryGet<SyncSpec, SyncStatus>(DIRECTORY_SYNC, ctx.key, { live: true });
      if (!sync || sync.metadata.deletionTimestamp !== undefined) return;
      const api = jsonApi(ctx.fetch, DIRECTORY_API);
      let members: Remote<Member>[];
      if (mistake === 'outage-is-empty') {
        try {
          members = await api.list<Member>('members', { group: sync.spec.group });
        } catch {
          members = [];
        }
      } else {
        // a failure is an error (retried with backoff), never "the group is empty"
        members = await api.list<Member>('members', { group: sync.spec.group });
      }
      const byLogin = new Map<string, Member>();
      for (const m of members) if (!byLogin.has(m.login)) byLogin.set(m.login, m);
      const logins = [...byLogin.keys()].sort();
      for (const login of logins) {
        const m = byLogin.get(login)!;
        await apply(ctx, { apiVersion: 'directory.example.com/v1', kind: 'User', metadata: { name: userName(sync, login), namespace: sync.metadata.namespace, labels: { [LABEL]: sync.metadata.name }, ownerReferences: [controllerRef(sync)] }, spec: { login, displayName: m.displayName } });
      }
      const wanted = new Set(logins.map((l) => userName(sync, l)));
      for (const u of await ctx.client.list<UserSpec>('User', { namespace: sync.metadata.namespace, labelSelector: { matchLabels: { [LABEL]: sync.metadata.name } } })) {
        if (!controlledBy(u, sync) || wanted.has(u.metadata.name) || u.metadata.deletionTimestamp !== undefined) continue;
        try {
          await ctx.client.delete('User', { namespace: u.metadata.namespace, name: u.metadata.name }, { preconditions: { uid: u.metadata.uid } });
        } catch (err) {
          if (!isStoreError(err, 'NotFound') && !isStoreError(err, 'Conflict')) throw err;
        }
      }
      await writeStatus(ctx, sync, { members: logins.length, observedGeneration: sync.metadata.generation });
      return { requeueAfter: 20_000 };
    },
  });
}

export const directoryImportController = directoryImport('none');

const DIRECTORY: readonly Member[] = [
  { group: 'eng', login: 'ana', displayName: 'Ana Lima' },
  { group: 'eng', login: 'bo', displayName: 'Bo Chen' },
  { group: 'ops', login: 'bo', displayName: 'Bo Chen' },
  { group: 'ops', login: 'cy', displayName: 'Cy Okafor' },
  { group: 'ops', login: 'dee', displayName: 'Dee Park' },
];

/** Every DirectorySync's Users are its group's members as the directory holds them at the end. */
function imported(view: WorldView): true | string {
  for (const sync of view.list(DIRECTORY_SYNC)) {
    if (sync.metadata.deletionTimestamp !== undefined) continue;
    const group = String(sync.spec['group']);
    const want = new Map<string, string>();
    const members = view.downstream('directory.example', 'members') as unknown as Member[];
    for (const m of members) if (m.group === group && !want.has(userName(sync, m.login))) want.set(userName(sync, m.login), m.displayName);
    const have = view.list('User').filter((u) => controlledBy(u, sync) && u.metadata.deletionTimestamp === undefined);
    for (const u of have) if (!want.has(u.metadata.name)) return `User ${u.metadata.name} is not a member of ${group}`;
    for (const [name, displayName] of want) {
      const u = have.find((x) => x.metadata.name === name);
      if (!u || u.spec['displayName'] !== displayName) return `User ${name} of ${group} is ${u ? 'out of date' : 'missing'}`;
    }
  }
  return true;
}

export const directoryImportCase: FalsePositiveCase = {
  name: 'directory-import',
  description: 'a DirectorySync imports the members of a group at an external directory API as owned User objects (poll every 20 s, create, rename, delete those who left); a failed listing is retried, never taken for an empty group',
  controllers: [directoryImportController],
  options: {
    objects: { kind: DIRECTORY_SYNC, name: 'staff', spec: [{ group: 'eng' }, { group: 'ops' }] },
    downstream: () => ({ services: [fakeRestService({ baseUrl: DIRECTORY_API, latencyMs: 20, resources: { members: DIRECTORY } })], timeoutMs: 5_000 }),
  },
  properties: [convergence({ converged: imported }), ...endStateProperties()],
  buggy: {
    controllers: [directoryImport('outage-is-empty')],
    caughtBy: ['no-extra-destructive-actions'],
    // bench/twin-seeds.ts
    seed: 4,
    why: 'it takes a failed directory listing for an empty group: one 503 deletes every User it imported, and the next pass makes them again',
  },
};
