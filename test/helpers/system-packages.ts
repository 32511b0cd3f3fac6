import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits until .ci/run's install of Debian packages (kubectl, chromium) has ended. CI installs them
 * in the background while the rest of the suite runs (on a fresh machine apt takes about a minute of
 * the 10-minute budget) and names a file it creates when apt is done; the files that need them are
 * scheduled last (vitest.config.ts) and wait here. Outside CI (no marker named) it returns at once.
 */
export async function systemPackagesSettled(maxWaitMs = 480_000): Promise<void> {
  const marker = process.env['STEADYSTATE_SYSTEM_PACKAGES_MARKER'];
  if (!marker) return;
  const until = Date.now() + maxWaitMs;
  while (!existsSync(marker) && Date.now() < until) await sleep(500);
}
