import { KUBE_HOST } from './in-process-transport.js';

/**
 * What a pod finds for in-cluster configuration, for a hosted incarnation: client-node's
 * `kc.loadFromCluster()` (and `loadFromDefault()` without a kubeconfig) reads
 * `KUBERNETES_SERVICE_HOST`/`KUBERNETES_SERVICE_PORT` and the service-account files below (a
 * hardcoded path unless the program passes a `pathPrefix`), then builds `https://HOST:PORT`.
 * @internal
 */

/** Where kubelet mounts a pod's service-account token, CA and namespace. @internal */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * The in-cluster service variables: `https://steadystate.invalid:443` is what client-node builds
 * from them (443: https; not an IPv6 address, so no brackets), and the in-process transport
 * serves that host whatever the port.
 * @internal
 */
export const IN_CLUSTER_ENV: Readonly<Record<string, string>> = {
  KUBERNETES_SERVICE_HOST: KUBE_HOST,
  KUBERNETES_SERVICE_PORT: '443',
  KUBERNETES_SERVICE_PORT_HTTPS: '443',
};

/**
 * A self-signed CA certificate for `steadystate.invalid` (EC P-256, valid 2026–2126; its key was
 * thrown away). Nothing is ever verified with it: in-process requests never reach a socket or a
 * TLS handshake. It is a real certificate so that code which parses the CA (`tls.createSecureContext`,
 * an `https.Agent`'s `ca`, `new X509Certificate`) gets what it would get in a pod.
 * @internal
 */
export const IN_PROCESS_CA_PEM = `-----BEGIN CERTIFICATE-----
MIIB+zCCAaGgAwIBAgIUVxzHCSUzhjbfqNtmaX4HJKHITx8wCgYIKoZIzj0EAwIw
QjEUMBIGA1UECgwLc3RlYWR5c3RhdGUxKjAoBgNVBAMMIXN0ZWFkeXN0YXRlLmlu
dmFsaWQgaW4tcHJvY2VzcyBDQTAgFw0yNjEyMDYxOTQ0MTBaGA8yMTI2MTExMjE5
NDQxMFowQjEUMBIGA1UECgwLc3RlYWR5c3RhdGUxKjAoBgNVBAMMIXN0ZWFkeXN0
YXRlLmludmFsaWQgaW4tcHJvY2VzcyBDQTBZMBMGByqGSM49AgEGCCqGSM49AwEH
A0IABM95ZCpc4A5CyhUkuTZQi1yvoo3v9Y4i2BmzdU/4JI8qv/oQU+Ie8B1GM6SE
U1JSszxKmvq7c9KS6qXGKX73AnyjczBxMB0GA1UdDgQWBBQKqj8iyTrJ8AFu3WVy
eqIt3C280TAfBgNVHSMEGDAWgBQKqj8iyTrJ8AFu3WVyeqIt3C280TAeBgNVHREE
FzAVghNzdGVhZHlzdGF0ZS5pbnZhbGlkMA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZI
zj0EAwIDSAAwRQIhAP8TG3R0CrgRcKSNDoNWzV/sMJ3joGYtv+/1woX5CuJTAiAG
f5/mLJaDVK3qowHAepmxgWIcsUa62o8JcyjkYY1RHA==
-----END CERTIFICATE-----
`;

/**
 * The service-account files of one incarnation: its bearer token (no trailing newline, as
 * kubelet writes it), the CA, and its namespace (`default`, the namespace of its kubeconfig's
 * context and of the objects a check generates).
 * @internal
 */
export function serviceAccountFiles(token: string, namespace = 'default'): Record<string, string> {
  return {
    [`${SERVICE_ACCOUNT_DIR}/token`]: token,
    [`${SERVICE_ACCOUNT_DIR}/ca.crt`]: IN_PROCESS_CA_PEM,
    [`${SERVICE_ACCOUNT_DIR}/namespace`]: namespace,
  };
}
