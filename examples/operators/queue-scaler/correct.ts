/** The queue scaler that keeps an idle Deployment at minReplicas. */
import { main } from './scaler.js';

main({ idleToZero: false });
