import { ConfigError } from "./config-error.ts";

// Who moves the money, as the environment says (`config.ts` reads and validates the variables first).

/** Stripe, reached at `apiUrl` (Stripe's own, or a proxy or a test stand-in). */
export interface StripeConfig {
  readonly secretKey: string;
  readonly publishableKey: string;
  readonly webhookSecret: string;
  readonly apiUrl: URL;
  /** Where the checkout page loads Stripe.js from. */
  readonly jsUrl: string;
}

export type PaymentsConfig =
  | { readonly processor: "sandbox" }
  | { readonly processor: "stripe"; readonly stripe: StripeConfig }
  /** `ENVIRONMENT=production` without `PAYMENT_PROCESSOR`: every charge fails, saying why. */
  | { readonly processor: "none" };

/** The variables the payments are read from, validated by `config.ts`. */
interface PaymentsEnv {
  ENVIRONMENT: "sandbox" | "production";
  PAYMENT_PROCESSOR?: "sandbox" | "stripe";
  STRIPE_SECRET_KEY?: string;
  STRIPE_PUBLISHABLE_KEY?: string;
  STRIPE_WEBHOOK_SECRET?: string;
  STRIPE_API_URL: string;
  STRIPE_JS_URL: string;
}

/** Which Stripe mode a key belongs to: `sk_test_…`/`pk_test_…` → test. */
const stripeMode = (key: string): "test" | "live" => (key.split("_")[1] === "live" ? "live" : "test");

/**
 * The processor follows `PAYMENT_PROCESSOR`; Stripe needs its three keys, and their mode must
 * match the deployment: a production deployment never takes test keys (its orders would not be
 * paid), a sandbox never takes live ones (its test clock and test cards would move real money).
 */
export function paymentsOf(env: PaymentsEnv): PaymentsConfig {
  const processor = env.PAYMENT_PROCESSOR;
  if (processor === undefined) return env.ENVIRONMENT === "production" ? { processor: "none" } : { processor: "sandbox" };
  if (processor === "sandbox") {
    if (env.ENVIRONMENT === "production")
      throw new ConfigError("Invalid environment variable PAYMENT_PROCESSOR: sandbox is refused when ENVIRONMENT=production");
    return { processor: "sandbox" };
  }
  const keys = {
    STRIPE_SECRET_KEY: env.STRIPE_SECRET_KEY,
    STRIPE_PUBLISHABLE_KEY: env.STRIPE_PUBLISHABLE_KEY,
    STRIPE_WEBHOOK_SECRET: env.STRIPE_WEBHOOK_SECRET,
  };
  for (const [name, value] of Object.entries(keys)) {
    if (value === undefined) throw new ConfigError(`Invalid environment variable ${name}: required when PAYMENT_PROCESSOR=stripe`);
  }
  const expected = env.ENVIRONMENT === "production" ? "live" : "test";
  for (const name of ["STRIPE_SECRET_KEY", "STRIPE_PUBLISHABLE_KEY"] as const) {
    if (stripeMode(keys[name]!) !== expected)
      throw new ConfigError(`Invalid environment variable ${name}: ENVIRONMENT=${env.ENVIRONMENT} takes Stripe ${expected}-mode keys only`);
  }
  return {
    processor: "stripe",
    stripe: Object.freeze({
      secretKey: keys.STRIPE_SECRET_KEY!,
      publishableKey: keys.STRIPE_PUBLISHABLE_KEY!,
      webhookSecret: keys.STRIPE_WEBHOOK_SECRET!,
      apiUrl: new URL(env.STRIPE_API_URL),
      jsUrl: env.STRIPE_JS_URL,
    }),
  };
}
