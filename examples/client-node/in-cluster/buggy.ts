/** The in-cluster exposer that remembers which Deployments it handled: a Deployment changed later, or whose write failed, is never looked at again. */
import { main } from './exposer.js';

main({ rememberExposed: true });
