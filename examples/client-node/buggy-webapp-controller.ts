import type { KubeConfig } from '@kubernetes/client-node';
import { startWebAppController, type WebAppControllerOptions } from './webapp-controller.js';

/**
 * The same WebApp controller with the classic bug: it writes status on every reconcile, with a
 * fresh `lastReconcileTime`. Each write is a watch event, each event a reconcile: API writes
 * never stop although nothing changes. steadystate's `no-hot-loop` property catches it.
 */
export function startBuggyWebAppController(kc: KubeConfig, options: Omit<WebAppControllerOptions, 'statusUpdate'> = {}): () => Promise<void> {
  return startWebAppController(kc, { ...options, statusUpdate: 'always' });
}
