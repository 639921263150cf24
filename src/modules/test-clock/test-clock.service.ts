import type { Deps } from "../../context.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { atClockOffset, realTime } from "../../values/clock.ts";
import { RequestValidationError, ResourceNotFound, fieldIssue } from "../../http/errors.ts";
import { dueCheckoutIds, expireCheckoutWhenDue } from "../checkouts/checkouts.steps.ts";
import { findClockOffset, setClockOffset } from "../organizations/organizations.steps.ts";
import type { CheckoutSessions } from "../checkouts/checkouts.steps.ts";
import type { SubscriptionRenewals } from "../../flows/renew-subscriptions.ts";
import * as repo from "./test-clock.repository.ts";
import type { TestClock, TestClockAdvanced } from "./test-clock.schemas.ts";

/** More steps than ten years of daily renewals of a busy sandbox: past it, something loops. */
const MAX_STEPS = 100_000;

/** What the test clock runs on: the dependencies, the renewals' sweep and the checkout sessions it expires. */
interface TestClockContext {
  deps: Deps;
  renewals: SubscriptionRenewals;
  checkouts: CheckoutSessions;
}

// The deployment's clock without any organization's offset: offsets are measured from it.
const baseNow = (ctx: TestClockContext) => realTime(ctx.deps.now);

async function offsetOf(ctx: TestClockContext, organizationId: string, allowed: OrganizationScope): Promise<number> {
  const offset = await findClockOffset(ctx.deps.db, organizationId, allowed);
  if (offset === undefined) throw new ResourceNotFound();
  return offset;
}

const view = (ctx: TestClockContext, organizationId: string, offsetMs: number): TestClock => ({
  organization_id: organizationId,
  now: new Date(baseNow(ctx).getTime() + offsetMs).toISOString(),
  offset_seconds: offsetMs / 1000,
});

/** Steps the organization's clock through everything due up to `to`, each run at the moment it came due, in time order. */
async function runDueUntil(ctx: TestClockContext, organizationId: string, to: number) {
  const { deps } = ctx;
  const totals = { renewals: 0, payment_retries: 0, expired_checkouts: 0 };
  for (let step = 0; ; step += 1) {
    if (step >= MAX_STEPS) throw new Error(`test clock of ${organizationId} did not settle in ${MAX_STEPS} steps`);
    const due = await repo.nextDueAt(deps.db, organizationId);
    if (due === null || due.getTime() > to) return totals;
    // Step to the moment it came due (never backwards), and run what is due then at that time.
    const offset = Math.max(due.getTime() - baseNow(ctx).getTime(), await offsetOf(ctx, organizationId, null));
    await setClockOffset(deps.db, organizationId, offset);
    await atClockOffset(offset, async () => {
      const done = await ctx.renewals.sweep({ organizationId });
      totals.renewals += done.renewed;
      totals.payment_retries += done.retried;
      for (const checkoutId of await dueCheckoutIds(deps.db, organizationId, deps.now())) {
        await expireCheckoutWhenDue(deps, ctx.checkouts, checkoutId);
        totals.expired_checkouts += 1;
      }
    });
  }
}

/** Moves the organization's time to `target` (forward only); answers once all that came due has run. */
async function advanceTestClock(
  ctx: TestClockContext,
  organizationId: string,
  target: { to: Date } | { seconds: number },
  allowed: OrganizationScope,
): Promise<TestClockAdvanced> {
  await offsetOf(ctx, organizationId, allowed);
  return ctx.deps.db.connection().execute(async (connection) => {
    await repo.lockClockAdvance(connection, organizationId);
    try {
      const start = await offsetOf(ctx, organizationId, allowed);
      const current = baseNow(ctx).getTime() + start;
      const to = "to" in target ? target.to.getTime() : current + target.seconds * 1000;
      if (to <= current)
        throw new RequestValidationError([
          fieldIssue(
            ["body", "to"],
            "The test clock only moves forward: give a time after the organization's current time.",
            new Date(to).toISOString(),
          ),
        ]);
      const totals = await runDueUntil(ctx, organizationId, to);
      // `seconds` moves the clock by exactly that much; `to` lands on that instant as of now.
      const finalOffset = "seconds" in target ? start + target.seconds * 1000 : to - baseNow(ctx).getTime();
      const offset = Math.max(finalOffset, await offsetOf(ctx, organizationId, null));
      await setClockOffset(ctx.deps.db, organizationId, offset);
      return { ...view(ctx, organizationId, offset), ...totals };
    } finally {
      await repo.unlockClockAdvance(connection, organizationId);
    }
  });
}

/**
 * The sandbox test clock: an organization moves its own time forward, and everything that came due
 * on the way runs at the moment it came due, in time order, as it would have in real time.
 */
export function createTestClock(deps: Deps, renewals: SubscriptionRenewals, checkouts: CheckoutSessions) {
  const ctx: TestClockContext = { deps, renewals, checkouts };
  return {
    get: async (organizationId: string, allowed: OrganizationScope): Promise<TestClock> =>
      view(ctx, organizationId, await offsetOf(ctx, organizationId, allowed)),
    advance: (organizationId: string, target: { to: Date } | { seconds: number }, allowed: OrganizationScope) =>
      advanceTestClock(ctx, organizationId, target, allowed),
  };
}
export type TestClockService = ReturnType<typeof createTestClock>;
