'use strict';
/**
 * Host fixture: a CommonJS program configured the in-pod way. It builds its client with
 * kc.loadFromCluster() and reads the service-account files itself through several fs calls
 * (destructured at load, the callback form, fs/promises), then records what it found in a
 * ConfigMap named after its replica (sa-<HOSTNAME>). With EXIT_AFTER set it exits after each
 * record, so each incarnation makes one (sa-<HOSTNAME>-at-<virtual second>).
 */
const { readFileSync, existsSync, accessSync, constants } = require('node:fs');
const fs = require('node:fs');
const fsp = require('node:fs/promises');
const { X509Certificate } = require('node:crypto');
const k8s = require('@kubernetes/client-node');

const DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
const kc = new k8s.KubeConfig();
kc.loadFromCluster();
const core = kc.makeApiClient(k8s.CoreV1Api);

function writable(path) {
  try {
    accessSync(path, constants.W_OK);
    return 'yes';
  } catch (err) {
    return err.code;
  }
}

async function main() {
  const token = readFileSync(`${DIR}/token`, 'utf8');
  const namespace = await fsp.readFile(`${DIR}/namespace`, 'utf8');
  const ca = await new Promise((resolve, reject) => fs.readFile(`${DIR}/ca.crt`, (err, buf) => (err ? reject(err) : resolve(buf))));
  const data = {
    token,
    namespace,
    contextNamespace: String(kc.getContextObject(kc.getCurrentContext()).namespace),
    server: kc.getCurrentCluster().server,
    caSubject: new X509Certificate(ca).subject.replace(/\n/g, ', '),
    dirExists: String(existsSync(DIR)),
    tokenWritable: writable(`${DIR}/token`),
    other: String(existsSync(`${DIR}/other`)),
  };
  // EXIT_AFTER: one record per incarnation (named by its start, in virtual seconds), then exit
  const name = process.env.EXIT_AFTER ? `sa-${process.env.HOSTNAME}-at-${Math.floor((Date.now() - Date.UTC(2026, 0, 1)) / 1000)}` : `sa-${process.env.HOSTNAME}`;
  await core.createNamespacedConfigMap({ namespace, body: { metadata: { name }, data } });
  console.log(`recorded ${name}`);
  if (process.env.EXIT_AFTER) process.exit(1);
}

main().catch((err) => console.error(`failed: ${err && err.message}`));
