import type { IncomingMessage, ServerResponse } from "node:http";
import { TEST_CARDS } from "./test-cards.ts";
import type { StripeObject, StripeState } from "./stripe-api.ts";

/**
 * The browser side of the stand-in: a Stripe.js at `GET /v3/stripe.js` implementing the calls the
 * checkout page makes (`Stripe(pk)`, `elements(options)` with `create("payment").mount()`,
 * `update()`, `submit()`, `createConfirmationToken`, `handleNextAction`), and the two requests it
 * makes back, under `/_browser/` because they are not Stripe's API: real Stripe.js sends the card
 * from its own frame, this one names one of Stripe's test payment methods. The "element" is a
 * labelled select of those methods in the page itself, and the 3-D Secure challenge a dialog with
 * Stripe's test page's two choices, so a browser test drives both like a buyer would.
 */

/** What the page handed `createConfirmationToken`, for a test to check (billing details, the Elements options). */
export interface BrowserToken {
  id: string;
  paymentMethod: string;
  billingDetails: unknown;
  elements: Record<string, unknown>;
}

export interface BrowserSide {
  readonly publishableKey: string;
  readonly state: StripeState;
  readonly tokens: BrowserToken[];
  /** Runs a change of Stripe's objects, sending its events as the stand-in's own actions do. */
  act(action: () => void): Promise<void>;
  render(object: StripeObject): StripeObject;
}

/** Stripe's test payment methods the element offers, the first (succeeding) one chosen by default. */
const METHODS: [string, string][] = [
  ["pm_card_visa", "Visa 4242 (succeeds)"],
  ["pm_card_chargeDeclined", "Visa 0002 (declined)"],
  ["pm_card_authenticationRequired", "Visa 3184 (3-D Secure)"],
  ["pm_card_mastercard", "Mastercard 4444 (succeeds)"],
];

// Plain JavaScript for the browser; `__API__` and `__METHODS__` are filled in when served.
const SOURCE = `(() => {
  "use strict";
  const API = __API__;
  const METHODS = __METHODS__;
  const integrationError = (message) => new Error("IntegrationError: " + message);
  const post = async (path, fields) => {
    const response = await fetch(API + path, { method: "POST", body: new URLSearchParams(fields) });
    return response.json();
  };
  const MODES = ["payment", "subscription", "setup"];
  function checkOptions(options) {
    if (!MODES.includes(options.mode)) throw integrationError("elements() needs mode payment, subscription or setup");
    if (options.mode !== "setup" && !(Number.isInteger(options.amount) && options.amount >= 0))
      throw integrationError("elements() in " + options.mode + " mode needs an integer amount");
    if (options.mode !== "setup" && typeof options.currency !== "string")
      throw integrationError("elements() in " + options.mode + " mode needs a currency");
  }
  let challenges = 0;
  function challenge() {
    challenges += 1;
    const dialog = document.createElement("dialog");
    const title = document.createElement("h2");
    title.id = "stand-in-3ds-title-" + challenges;
    title.textContent = "3D Secure 2 Test Page";
    dialog.setAttribute("aria-labelledby", title.id);
    const buttons = ["Complete authentication", "Fail authentication"].map((label) => {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = label;
      return button;
    });
    dialog.append(title, ...buttons);
    document.body.append(dialog);
    dialog.showModal();
    return new Promise((resolve) => {
      buttons[0].addEventListener("click", () => resolve("succeeded"));
      buttons[1].addEventListener("click", () => resolve("failed"));
    }).finally(() => dialog.remove());
  }
  window.Stripe = (publishableKey) => {
    if (typeof publishableKey !== "string" || !publishableKey.startsWith("pk_"))
      throw integrationError("Stripe() needs a publishable key");
    const made = new WeakMap();
    return {
      elements(options) {
        checkOptions(options);
        const state = { options: { ...options }, select: null };
        const elements = {
          create(type, elementOptions) {
            if (type !== "payment") throw integrationError("this stand-in has the Payment Element only");
            return {
              options: elementOptions,
              mount(target) {
                const select = document.createElement("select");
                select.id = "stand-in-payment-method";
                select.name = "stripe_test_payment_method";
                for (const [value, label] of METHODS) select.append(new Option(label, value));
                const label = document.createElement("label");
                label.htmlFor = select.id;
                label.textContent = "Test payment method";
                target.append(label, select);
                state.select = select;
              },
              on() {},
              unmount() {
                state.select?.remove();
                state.select = null;
              },
            };
          },
          update(next) {
            const options = { ...state.options, ...next };
            checkOptions(options);
            state.options = options;
          },
          async submit() {
            state.submitted = false;
            if (!state.select) return { error: { type: "validation_error", message: "The Payment Element is not mounted." } };
            state.submitted = true;
            return {};
          },
        };
        made.set(elements, state);
        return elements;
      },
      async createConfirmationToken({ elements, params }) {
        const state = made.get(elements);
        if (!state) throw integrationError("createConfirmationToken() needs the elements this Stripe object made");
        if (!state.submitted) throw integrationError("elements.submit() must resolve before createConfirmationToken()");
        if (state.options.paymentMethodCreation !== "manual")
          throw integrationError("createConfirmationToken() needs elements created with paymentMethodCreation: 'manual'");
        const billing = params && params.payment_method_data && params.payment_method_data.billing_details;
        const answer = await post("/_browser/confirmation_tokens", {
          key: publishableKey,
          payment_method: state.select.value,
          billing_details: JSON.stringify(billing === undefined ? null : billing),
          elements: JSON.stringify(state.options),
        });
        return answer.error ? { error: answer.error } : { confirmationToken: answer };
      },
      async handleNextAction({ clientSecret }) {
        if (typeof clientSecret !== "string") throw integrationError("handleNextAction() needs a clientSecret");
        const result = await challenge();
        const answer = await post("/_browser/authenticate", { key: publishableKey, client_secret: clientSecret, result });
        if (answer.error) return { error: answer.error };
        const failure = answer.last_payment_error || answer.last_setup_error;
        if (answer.status === "requires_payment_method" && failure) return { error: { ...failure, [answer.object]: answer } };
        return answer.object === "setup_intent" ? { setupIntent: answer } : { paymentIntent: answer };
      },
    };
  };
})();
`;

const stripeJs = (origin: string) => SOURCE.replace("__API__", JSON.stringify(origin)).replace("__METHODS__", JSON.stringify(METHODS));

async function formOf(request: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

/** The intent whose client secret the page holds: the secret is all Stripe.js knows of it. */
function intentBySecret(state: StripeState, clientSecret: string): StripeObject | undefined {
  return [...state.all("payment_intent"), ...state.all("setup_intent")].find((intent) => intent.client_secret === clientSecret);
}

/** Answers the browser's requests (`/v3/stripe.js`, `/_browser/…`); false for the API's. */
export async function answerBrowser(
  request: IncomingMessage,
  response: ServerResponse,
  side: BrowserSide,
  origin: string,
): Promise<boolean> {
  const path = new URL(request.url ?? "/", origin).pathname;
  if (request.method === "GET" && path === "/v3/stripe.js") {
    response.writeHead(200, { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-store" });
    response.end(stripeJs(origin));
    return true;
  }
  if (!path.startsWith("/_browser/")) return false;
  /** Answers (handled: true). The page is on another origin: Stripe's API answers it with CORS headers too. */
  const reply = (status: number, body: unknown): true => {
    response.writeHead(status, { "content-type": "application/json", "access-control-allow-origin": request.headers.origin ?? "*" });
    response.end(JSON.stringify(body));
    return true;
  };
  const refuse = (status: number, message: string) => reply(status, { error: { type: "invalid_request_error", message } });
  const form = await formOf(request);
  if (request.method !== "POST") return refuse(405, `${request.method} ${path} is not served`);
  if (form.get("key") !== side.publishableKey) return refuse(401, "Invalid API Key provided.");

  if (path === "/_browser/confirmation_tokens") {
    const method = form.get("payment_method") ?? "";
    if (!TEST_CARDS[method]) return refuse(400, `No such test payment method: '${method}'`);
    const elements = JSON.parse(form.get("elements") ?? "{}") as Record<string, unknown>;
    const token = side.render(
      side.state.createConfirmationToken({
        payment_method: method,
        ...(elements.setupFutureUsage === "off_session" ? { setup_future_usage: "off_session" } : {}),
      }),
    );
    side.tokens.push({ id: token.id, paymentMethod: method, billingDetails: JSON.parse(form.get("billing_details") ?? "null"), elements });
    return reply(200, token);
  }
  if (path === "/_browser/authenticate") {
    const intent = intentBySecret(side.state, form.get("client_secret") ?? "");
    const result = form.get("result");
    if (!intent) return refuse(404, "No such intent for this client secret.");
    // Stripe.js throws when the intent does not wait for the buyer; the stand-in answers why instead.
    if (intent.status !== "requires_action" || (result !== "succeeded" && result !== "failed"))
      return refuse(400, `The intent's status is ${String(intent.status)}: there is no action to handle.`);
    await side.act(() => side.state.authenticate(intent.id, result));
    return reply(200, side.render(intent));
  }
  return refuse(404, `Unrecognized request URL (POST: ${path}).`);
}
