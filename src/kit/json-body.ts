import type { FastifyInstance } from "fastify";

/**
 * Routes without a body (POST /v1/orders/{id}/invoice, …) accept an empty request sent with
 * `Content-Type: application/json`, as the official SDK sends it; routes with a body still refuse
 * an empty one (422 at `["body"]`). Parsing itself stays Fastify's, with its prototype-poisoning
 * protection.
 */
export function acceptEmptyJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    if (body === "" && request.routeOptions.schema?.body === undefined) {
      done(null, undefined);
      return;
    }
    void parseJson(request, body.toString(), done);
  });
}
