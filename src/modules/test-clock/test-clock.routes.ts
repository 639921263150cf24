import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { organizationScope, principalOf, type Principal } from "../../http/auth.ts";
import { RequestValidationError, missingIssue } from "../../http/errors.ts";
import { ORGANIZATION_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import { TestClock, TestClockAdvance, TestClockAdvanced, TestClockQuery } from "./test-clock.schemas.ts";
import type { TestClockService } from "./test-clock.service.ts";

const tags = ["test-clock"];
// Moving time renews and charges subscriptions: the same scope as changing one.
const WRITE = ["subscriptions:write"];
const READ = ["subscriptions:read", "subscriptions:write"];

/** The organization of the call: an organization token's own, or the one a personal token names. */
function organizationOf(principal: Principal, given: string | undefined, loc: string[]): string {
  if (principal.kind !== "user") return given ?? principal.organizationId;
  if (given === undefined) throw new RequestValidationError([missingIssue(loc)]);
  return given;
}

/** Every `/v1/test-clock` route; registered in the sandbox environment only (production answers 404). */
export const testClockRoutes =
  (clock: TestClockService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/test-clock",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "test_clock:get",
          tags,
          summary: "Get Test Clock",
          description: "The organization's current time in the sandbox.",
          querystring: TestClockQuery,
          response: responses({ 200: TestClock }, { notFound: true }),
        },
      },
      async (request) => {
        const principal = principalOf(request);
        const organizationId = organizationOf(principal, request.query.organization_id, ["query", "organization_id"]);
        return clock.get(organizationId, organizationScope(principal));
      },
    );

    app.post(
      "/v1/test-clock/advance",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "test_clock:advance",
          tags,
          summary: "Advance Test Clock",
          description:
            "Moves the organization's time forward and answers once every renewal, trial end, payment retry, period-end cancellation and checkout expiry that came due on the way has run, in time order.",
          body: TestClockAdvance,
          response: responses({ 200: TestClockAdvanced }, { notFound: true }),
        },
      },
      async (request) => {
        const principal = principalOf(request);
        const body = request.body;
        const organizationId = organizationOf(principal, body.organization_id, ["body", "organization_id"]);
        const target = "to" in body ? { to: new Date(body.to) } : { seconds: body.seconds };
        return clock.advance(organizationId, target, organizationScope(principal));
      },
    );
  };
