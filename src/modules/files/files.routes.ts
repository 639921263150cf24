import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { organizationScope, principalOf } from "../../http/auth.ts";
import { NoContent, ORGANIZATION_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import { plainJsonResponse } from "../../http/serialization.ts";
import { IdParams } from "../../schema/primitives.ts";
import { FileCreate, FileListQuery, FilePatch, FileUploadCompleted } from "./file-inputs.schemas.ts";
import { FileRead, FileUpload, ListResourceFileRead } from "./files.schemas.ts";
import type { FileService } from "./files.service.ts";
import type { PublicFiles } from "./public-files.service.ts";

const READ = ["files:read", "files:write"];
const WRITE = ["files:write"];
const tags = ["files"];

export const fileRoutes =
  (files: FileService, publicFiles: PublicFiles): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/files/",
      {
        // Files are a union of objects told apart by `service`: serialized as built.
        ...plainJsonResponse,
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "files:list",
          tags,
          summary: "List Files",
          description: "The uploaded files, newest first.",
          querystring: FileListQuery,
          response: responses({ 200: ListResourceFileRead }),
        },
      },
      async (request) => files.list(request.query, organizationScope(principalOf(request))),
    );

    app.post(
      "/v1/files/",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "files:create",
          tags,
          summary: "Create File",
          description: "Opens a multipart upload: the client PUTs each part to its URL, then calls `/uploaded`.",
          body: FileCreate,
          response: responses({ 201: FileUpload }),
        },
      },
      async (request, reply) => reply.code(201).send(await files.create(principalOf(request), request.body)),
    );

    app.post(
      "/v1/files/:id/uploaded",
      {
        ...plainJsonResponse,
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "files:uploaded",
          tags,
          summary: "Complete File Upload",
          description: "Joins the uploaded parts and checks them against the checksums announced.",
          params: IdParams,
          body: FileUploadCompleted,
          response: responses({ 200: FileRead }, { notFound: true }),
        },
      },
      async (request) => files.completeUpload(request.params.id, request.body, organizationScope(principalOf(request))),
    );

    app.patch(
      "/v1/files/:id",
      {
        ...plainJsonResponse,
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "files:update",
          tags,
          summary: "Update File",
          params: IdParams,
          body: FilePatch,
          response: responses({ 200: FileRead }, { notFound: true }),
        },
      },
      async (request) => files.update(request.params.id, request.body, organizationScope(principalOf(request))),
    );

    app.delete(
      "/v1/files/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "files:delete",
          tags,
          summary: "Delete File",
          params: IdParams,
          response: responses({ 204: NoContent }, { notFound: true }),
        },
      },
      async (request, reply) => {
        await files.remove(request.params.id, organizationScope(principalOf(request)));
        return reply.code(204).send();
      },
    );

    // A product's media and an organization's avatar are public: anyone may follow their `public_url`.
    app.get("/files/public/:id", { schema: { hide: true, params: IdParams } }, async (request, reply) =>
      reply.header("cache-control", "public, max-age=300").redirect(await publicFiles.downloadUrl(request.params.id), 302),
    );
  };
