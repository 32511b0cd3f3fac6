import type { ReconcileContext, StoredObject } from '../../../src/index.js';
import { ensureOwned } from '../shared/owned.js';

/**
 * A `Website` serves a domain from a generated nginx ConfigMap. Its controller keeps the
 * ConfigMap in line with the spec and reports progress in status (the "status-reporting
 * controller" of the bug zoo). Shared by the buggy and the correct controller: the bug is only
 * in how status is written.
 */
export const WEBSITE_KIND = 'Website';

export interface WebsiteSpec {
  domain: string;
  /** Path served as the document root. @defaultValue '/' */
  path?: string;
}

export interface WebsiteStatus {
  phase?: 'Ready';
  configMap?: string;
  observedGeneration?: number;
  /** When the controller last wrote status (RFC 3339, virtual clock). */
  lastSyncTime?: string;
}

export type Website = StoredObject<WebsiteSpec, WebsiteStatus>;

/** Name of the ConfigMap a website owns. */
export function configMapName(site: Website): string {
  return `${site.metadata.name}-nginx`;
}

/** Creates or repairs the website's ConfigMap (owned by the website). */
export async function ensureConfigMap(ctx: ReconcileContext, site: Website): Promise<void> {
  const conf = `server { server_name ${site.spec.domain}; root /srv${site.spec.path ?? '/'}; }`;
  await ensureOwned(ctx, site, 'ConfigMap', configMapName(site), { data: { 'server.conf': conf } });
}
