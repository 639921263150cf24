/**
 * The job queue as the features see it: background work enqueued on the caller's executor, inside
 * its transaction (graphile-worker). The statements are in job-queue.repository.ts.
 */
export { enqueueJob, enqueueJobs, removeJob, type EnqueueOptions, type JobSpec } from "./job-queue.repository.ts";
