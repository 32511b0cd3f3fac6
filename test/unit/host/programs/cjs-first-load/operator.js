// Host fixture (CommonJS, red team round 9 CJS-1): requires a library whose first evaluation sets a
// timer, then imports the ESM client (still loading when that timer is set), then writes once a second.
require('load-timer');
void (async () => {
  const { CoreV1Api, KubeConfig } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  kc.loadFromDefault();
  const core = kc.makeApiClient(CoreV1Api);
  let n = 0;
  setInterval(() => {
    n++;
    core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: `tick-${n}` } } }).catch(() => undefined);
  }, 1_000);
})();
