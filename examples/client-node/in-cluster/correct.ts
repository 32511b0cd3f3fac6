/** The in-cluster exposer: level-triggered, every resync compares each Deployment with its Service again. */
import { main } from './exposer.js';

main({ rememberExposed: false });
