// The syncer as a CLI module: the buggy controller and the options its check runs with.
export { buggySyncer, checkOptions } from './syncer.js';
