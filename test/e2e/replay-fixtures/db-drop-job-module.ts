// The db-drop-job corpus case's buggy twin (its drop Job owned by the Database) as a CLI module: the controller and the options its check runs with.
import { job, podLifecycle } from '../../../src/index.js';
import { dbDropJob } from '../../../examples/false-positives/db-drop-job.js';

export const ownedJob = dbDropJob.buggy!.controllers[0]!;
// the tail test/e2e/fault-free-twin.test.ts checks with (a replay runs what the check ran)
export const checkOptions = { environment: [job, podLifecycle], tailMs: 5_000 };
