import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import S3rver from "s3rver";

export interface TestS3 {
  endpoint: string;
  bucket: string;
  stop(): Promise<void>;
}

/** A real S3-compatible server (s3rver) on a free loopback port, with one bucket. */
export async function startTestS3(bucket = "commerce-test"): Promise<TestS3> {
  const directory = await mkdtemp(path.join(os.tmpdir(), "commerce-api-s3-"));
  const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  const address = await server.run();
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    bucket,
    stop: async () => {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
