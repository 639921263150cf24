/**
 * The job queue as the features see it: background work enqueued on the caller's executor, inside
 * its transaction (graphile-worker). The statements are in job-queue.repository.ts.
 */
export { enqueueJob, removeJob, type EnqueueOptions } from "./job-queue.repository.ts";
