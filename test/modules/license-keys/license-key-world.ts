import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createCustomer, createOrganization } from "../../helpers/factories.ts";

// The rate limits have their own test file; elsewhere they must not get in the way.
const UNLIMITED = { LICENSE_KEY_RATE_LIMIT_PER_ADDRESS: "1000000", LICENSE_KEY_RATE_LIMIT_PER_KEY: "1000000" };

export interface LicenseKeyWorld {
  ctx: TestContext;
  orgId: string;
  /** An organization whose ids the first one's requests must not reach. */
  otherOrgId: string;
  customerId: string;
}

/** The license-key tests' server (rate limits out of the way), two organizations and a customer of the first. */
export async function openLicenseKeyWorld(): Promise<LicenseKeyWorld> {
  const ctx = await createTestContext({ env: UNLIMITED });
  const orgId = (await createOrganization(ctx.deps)).id;
  const otherOrgId = (await createOrganization(ctx.deps)).id;
  const customerId = (await createCustomer(ctx.deps, orgId)).id;
  return { ctx, orgId, otherOrgId, customerId };
}
