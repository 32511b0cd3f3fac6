/**
 * Host fixture (CommonJS): module state a restart must rebuild, required the CommonJS way.
 * client-node 1.x is ESM only, so a CommonJS program imports it dynamically.
 */
const state = require('./state.cjs');
state.loads++;
void (async () => {
  const { CoreV1Api, KubeConfig } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  kc.loadFromDefault();
  const core = kc.makeApiClient(CoreV1Api);
  const at = Date.now();
  await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: `cjs-${at}` }, data: { loads: String(state.loads) } } });
  setTimeout(() => process.exit(2), 1000);
})();
