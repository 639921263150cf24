import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { AppError } from "../../http/errors.ts";
import { contentDisposition } from "./s3-blob-store.ts";
import type { LocalBlobStore } from "./local-blob-store.ts";

const SignedQuery = Type.Object({
  expires: Type.Integer({ minimum: 0 }),
  filename: Type.String({ minLength: 1, maxLength: 255 }),
  signature: Type.String({ minLength: 1, maxLength: 128 }),
});

const PartParams = Type.Object({ upload_id: Type.String({ maxLength: 64 }), part_number: Type.Integer({ minimum: 1, maximum: 10_000 }) });
const PartQuery = Type.Object({ expires: Type.Integer({ minimum: 0 }), signature: Type.String({ minLength: 1, maxLength: 128 }) });

/**
 * The largest part this process takes in one PUT, held in memory while it is checked and written.
 * Clients choose their parts' sizes; 64 MiB parts give a 10,000-part upload 640 GiB.
 */
export const LOCAL_PART_BODY_LIMIT = 64 * 1024 * 1024;

/** A tampered, expired or unknown link: the same answer, so a caller learns nothing. */
const forbidden = () => new AppError(403, "Forbidden", "This download link is invalid or has expired.");

/** Downloads of locally stored files through signed links (the S3 store links to S3 directly). */
export const localBlobRoutes =
  (store: LocalBlobStore): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get("/blobs/*", { schema: { hide: true, querystring: SignedQuery } }, async (request, reply) => {
      const key = (request.params as { "*": string })["*"];
      const found = await store.open({ key, ...request.query }).catch(() => null);
      if (!found) throw forbidden();
      return reply
        .header("content-type", found.meta.contentType)
        .header("content-disposition", contentDisposition(request.query.filename))
        .header("cache-control", found.meta.cacheControl ?? "private, no-store")
        .send(found.body);
    });

    // Parts of multipart uploads, as a client PUTs them to S3's presigned URLs: raw bytes of any type.
    const partRoutes: FastifyPluginAsyncTypebox = async (parts) => {
      parts.removeAllContentTypeParsers();
      parts.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: LOCAL_PART_BODY_LIMIT }, (_request, body, done) => done(null, body));
      parts.put(
        "/blob-parts/:upload_id/:part_number",
        { bodyLimit: LOCAL_PART_BODY_LIMIT, schema: { hide: true, params: PartParams, querystring: PartQuery } },
        async (request, reply) => {
          const checksum = request.headers["x-amz-checksum-sha256"];
          const etag = await store.receivePart({
            uploadId: request.params.upload_id,
            partNumber: request.params.part_number,
            ...request.query,
            checksum: typeof checksum === "string" ? checksum : null,
            body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
          });
          if (etag === null) throw forbidden();
          return reply.header("etag", `"${etag}"`).code(200).send();
        },
      );
    };
    await app.register(partRoutes);
  };
