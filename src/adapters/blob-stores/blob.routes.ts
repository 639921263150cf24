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
  };
