// The same controller without the check options: a replay from here lacks the downstream.
export { buggySyncer } from './syncer.js';
