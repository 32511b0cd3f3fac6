/** The TTL expirer that retries a failed status write (from the Sandbox as the cache has it then). */
import { main } from './expirer.js';

main({ retryFailedWrites: true });
