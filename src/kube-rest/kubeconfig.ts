/** Options of {@link kubeconfigFor}. @public */
export interface KubeconfigOptions {
  /** The API server URL (the loopback server's `url`, or {@link KUBE_BASE_URL} in-process). */
  server: string;
  /** Bearer token naming the actor (from `api.issueToken`); none: requests count as the user. */
  token?: string;
  /** Default namespace of the context. @defaultValue 'default' */
  namespace?: string;
  /** Name of the cluster, user and context entries. @defaultValue 'steadystate' */
  name?: string;
}

/**
 * A kubeconfig for the simulated cluster, as JSON text (valid YAML, so kubectl,
 * `KubeConfig.loadFromString` and client-go all read it). TLS verification is off: the loopback
 * server speaks plain HTTP (which client-node 1.x accepts only with `insecure-skip-tls-verify`),
 * and in-process requests never reach a socket.
 * @public
 */
export function kubeconfigFor(options: KubeconfigOptions): string {
  if (typeof options?.server !== 'string' || !/^https?:\/\//.test(options.server)) throw new TypeError(`steadystate.kubeconfigFor: server must be an http(s) URL, got ${JSON.stringify(options?.server)}`);
  const name = options.name ?? 'steadystate';
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    // client-node refuses plain http unless TLS verification is off, so it is always off
    clusters: [{ name, cluster: { server: options.server, 'insecure-skip-tls-verify': true } }],
    users: [{ name, user: options.token !== undefined ? { token: options.token } : {} }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: options.namespace ?? 'default' } }],
    'current-context': name,
    preferences: {},
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}
