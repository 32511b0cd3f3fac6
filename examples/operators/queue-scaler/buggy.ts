/** The queue scaler that scales an idle Deployment to zero, whatever minReplicas says. */
import { main } from './scaler.js';

main({ idleToZero: true });
