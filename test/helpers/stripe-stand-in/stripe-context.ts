import Stripe from "stripe";
import { createTestContext, listen, type TestContext } from "../context.ts";
import { startStripeStandIn, type StripeStandIn } from "./stand-in.ts";

/** The environment of an app whose processor is the stand-in's Stripe (and, for pages, its Stripe.js). */
export const stripeEnv = (standIn: StripeStandIn): Record<string, string> => ({
  PAYMENT_PROCESSOR: "stripe",
  STRIPE_SECRET_KEY: standIn.secretKey,
  STRIPE_PUBLISHABLE_KEY: standIn.publishableKey,
  STRIPE_WEBHOOK_SECRET: standIn.webhookSecret,
  STRIPE_API_URL: standIn.url,
  STRIPE_JS_URL: `${standIn.url}/v3/stripe.js`,
});

/** The SDK pointed at the stand-in, as a test acts in Stripe (test confirmation tokens, reading what the app made). */
export function standInClient(standIn: StripeStandIn): Stripe {
  const url = new URL(standIn.url);
  return new Stripe(standIn.secretKey, { host: url.hostname, port: Number(url.port), protocol: "http" });
}

/**
 * A test app on the stand-in's Stripe, and the stand-in; with `webhookPath`, the app listens and
 * the stand-in's signed events are delivered to it there. `close` stops both.
 */
export async function openStripeContext(options: { webhookPath?: string } = {}) {
  const stripe = await startStripeStandIn();
  const ctx: TestContext = await createTestContext({ env: stripeEnv(stripe) });
  if (options.webhookPath) stripe.deliverTo(`${await listen(ctx)}${options.webhookPath}`);
  return {
    ctx,
    stripe,
    sdk: standInClient(stripe),
    close: async () => {
      await ctx.close();
      await stripe.close();
    },
  };
}
