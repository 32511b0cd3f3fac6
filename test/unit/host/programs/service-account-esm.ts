/**
 * Host fixture: an ESM program that reads its service account with named imports (`node:fs`,
 * `node:fs/promises`) and records its token in a ConfigMap sa-<HOSTNAME>, through a client built
 * with loadFromCluster().
 */
import { existsSync, readFileSync } from 'node:fs';
import { access, readFile } from 'node:fs/promises';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';

const DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
const kc = new KubeConfig();
kc.loadFromCluster();
const core = kc.makeApiClient(CoreV1Api);

await access(`${DIR}/ca.crt`);
const namespace = await readFile(`${DIR}/namespace`, { encoding: 'utf8' });
const data = { token: readFileSync(`${DIR}/token`).toString('utf8'), namespace, tokenExists: String(existsSync(`${DIR}/token`)) };
await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: `sa-${process.env['HOSTNAME']}` }, data } });
