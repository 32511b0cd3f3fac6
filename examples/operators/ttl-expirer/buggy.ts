/**
 * The TTL expirer that logs a failed status write and moves on: the informer has no resync, so a
 * Sandbox whose `Expired` write failed (a 5xx, a conflict, a cut connection) stays `Active` for
 * good unless someone edits it.
 */
import { main } from './expirer.js';

main({ retryFailedWrites: false });
