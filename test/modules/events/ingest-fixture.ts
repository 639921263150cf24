import type { Kysely } from "kysely";
import type { Database } from "../../../src/db/database.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createCustomer, createOrganization, createOrganizationToken } from "../../helpers/factories.ts";

/** Two organizations, a customer in each and an events:write token for the first: the ingest tests' world. */
export interface IngestFixture {
  ctx: TestContext;
  orgId: string;
  otherOrgId: string;
  writeToken: string;
  customerId: string;
  otherOrgCustomerId: string;
}

export async function createIngestFixture(): Promise<IngestFixture> {
  const ctx = await createTestContext();
  const orgId = (await createOrganization(ctx.deps)).id;
  const otherOrgId = (await createOrganization(ctx.deps)).id;
  return {
    ctx,
    orgId,
    otherOrgId,
    writeToken: await createOrganizationToken(ctx.deps, orgId, ["events:write"]),
    customerId: (await createCustomer(ctx.deps, orgId)).id,
    otherOrgCustomerId: (await createCustomer(ctx.deps, otherOrgId)).id,
  };
}

export const postEvents = (ctx: TestContext, events: unknown, token: string | null) =>
  ctx.request({ method: "POST", url: "/v1/events/ingest", token, payload: { events } });

export const countEvents = async (db: Kysely<Database>): Promise<number> => {
  const row = await db
    .selectFrom("events")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
};

export const uniqueId = (label: string) => `${label}-${Math.random().toString(36).slice(2)}`;
