import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { principalOf } from "../../http/auth.ts";
import { ErrorBody } from "../../http/errors.ts";
import { PORTAL_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import {
  DownloadableListQuery,
  DownloadTokenParams,
  ListResourceDownloadableRead,
  type DownloadableService,
} from "../files/files.steps.ts";
import { portalCustomerOf } from "./portal-session.ts";

const READ = ["customer_portal:read", "customer_portal:write"];
const tags = ["customer_portal"];

export const portalDownloadableRoutes =
  (downloadables: DownloadableService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/customer-portal/downloadables/",
      {
        config: requireAuth(PORTAL_SIDE, READ),
        schema: {
          operationId: "customer_portal:downloadables:list",
          tags,
          summary: "List Downloadables",
          description: "The files the customer's benefits give, each with a download link working for an hour.",
          querystring: DownloadableListQuery,
          response: responses({ 200: ListResourceDownloadableRead }),
        },
      },
      async (request) => {
        const principal = principalOf(request);
        return downloadables.list(principal.kind === "member" ? null : portalCustomerOf(principal).customerId, request.query);
      },
    );

    // The link itself needs no session (it is signed). The hosted service serves it without
    // documenting it; documented here as an extension, so every /v1 route is in the document.
    app.get(
      "/v1/customer-portal/downloadables/:token",
      {
        schema: {
          operationId: "customer_portal:downloadables:download",
          tags,
          summary: "Download a File (extension)",
          description:
            "The `download.url` of a listed downloadable: no credential, the link is signed and works for an hour. Answers 302 to the file; 404 for a link this server did not sign, 410 once it has expired or the file is gone.",
          params: DownloadTokenParams,
          response: { 302: Type.Null({ description: "Redirect to the file." }), 404: ErrorBody, 410: ErrorBody },
        },
      },
      async (request, reply) =>
        reply.header("cache-control", "private, no-store").redirect(await downloadables.download(request.params.token), 302),
    );
    // An order email's link (`emailDownloadLinkPath`): signed, no session, checked against the grant.
    app.get("/downloads/:token", { schema: { hide: true, params: DownloadTokenParams } }, async (request, reply) =>
      reply.header("cache-control", "private, no-store").redirect(await downloadables.downloadFromEmail(request.params.token), 302),
    );
  };
