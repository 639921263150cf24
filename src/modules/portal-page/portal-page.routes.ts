import type { FastifyPluginAsync } from "fastify";
import { RequestValidationError } from "../../http/errors.ts";
import { themeOf } from "../../pages/html-page.ts";
import type { WebAssets } from "../../pages/web-assets.ts";
import { billingDetails, fieldErrorsOf, readBillingForm } from "./portal-page.forms.ts";
import type { PortalPageServices } from "./portal-page.data.ts";
import type { CardAuthentication } from "./portal-page.render.ts";
import { SIGN_IN_PARAMETER } from "../customers/portal-sign-ins.steps.ts";
import { portalPath } from "./portal-page.session.ts";
import type { Config } from "../../config.ts";
import { enterPortal, redeemSignInLink, registerSignInRoutes } from "./portal-page.sign-in.ts";
import { portalPageOrderRoutes } from "./portal-page-orders.routes.ts";
import {
  asCustomer,
  backTo,
  noticeOf,
  ordersPageOf,
  overview,
  portalNotFound,
  refused,
  type Params,
  type PortalPageContext,
} from "./portal-page.visit.ts";

const FORM_BODY_LIMIT = 16 * 1024;

const NOT_CONFIRMED = "Your bank has not confirmed this card yet. Confirm it with your bank to save it.";

/**
 * The setup a client secret belongs to: Stripe's client secrets are the intent's id, then `_secret_`
 * (Stripe.js reads them the same way); only Stripe asks for 3-D Secure here.
 */
const setupIntentOf = (clientSecret: string): CardAuthentication => ({
  clientSecret,
  setupIntentId: clientSecret.split("_secret_")[0] ?? clientSecret,
});

/**
 * The customer portal at the `customer_portal_url` of a customer session (`/{slug}/portal`). The
 * link's token is exchanged for an HttpOnly cookie scoped to the portal, and the address loses it;
 * every page is rendered on the server from the customer-portal services, every action is a form
 * posted to the portal and answered with a redirect (or the page again with what to fix). The
 * pages of one order are in `portal-page-orders.routes.ts`.
 */
export const portalPageRoutes =
  (services: PortalPageServices, webAssets: WebAssets, config: Config): FastifyPluginAsync =>
  async (app) => {
    const context: PortalPageContext = { services, webAssets };
    app.addContentTypeParser(
      "application/x-www-form-urlencoded",
      { parseAs: "string", bodyLimit: FORM_BODY_LIMIT },
      (_request, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(body as string)));
      },
    );

    // The link of a customer session: its token becomes the cookie, and the address loses it. An
    // email's single-use sign-in link (`?sign_in=`) is exchanged for a session first.
    app.get<{ Params: Params; Querystring: Record<string, unknown> }>(
      "/:slug/portal",
      { schema: { hide: true } },
      async (request, reply) => {
        const signInToken = request.query[SIGN_IN_PARAMETER];
        if (typeof signInToken === "string") {
          const organization = await services.sessions.organization(request.params.slug);
          if (!organization) return portalNotFound(context, reply, themeOf(request.query));
          return redeemSignInLink(context, request, reply, organization, signInToken);
        }
        const token = request.query.customer_session_token;
        if (typeof token !== "string")
          return asCustomer(context, async (visit, req, res, theme) =>
            overview(context, res, visit, theme, { notice: noticeOf(req.query), ordersPage: ordersPageOf(req.query) }),
          )(request, reply);
        const theme = themeOf(request.query);
        const organization = await services.sessions.organization(request.params.slug);
        if (!organization) return portalNotFound(context, reply, theme);
        const entry = await services.sessions.enter(organization, token);
        if ("refused" in entry) return refused(context, reply, organization, theme, entry.refused);
        return enterPortal(reply, request, organization.slug, token, theme ? `?theme=${theme}` : "");
      },
    );

    app.post<{ Params: Params }>(
      "/:slug/portal/billing",
      { schema: { hide: true } },
      asCustomer(context, async (visit, request, reply, theme) => {
        const values = readBillingForm(request.body);
        try {
          const details = billingDetails(values, false);
          await services.customers.update(visit.session, { ...details, tax_id: values.tax_id === "" ? null : values.tax_id });
        } catch (error) {
          if (!(error instanceof RequestValidationError)) throw error;
          const { errors, rest } = fieldErrorsOf(error);
          return overview(context, reply, visit, theme, {
            code: 422,
            problem: rest ?? "Check the billing details below.",
            billing: { values, errors },
          });
        }
        return backTo(reply, visit, "billing-saved", "billing");
      }),
    );

    await app.register(portalPageOrderRoutes(context));
    await registerSignInRoutes(app, context, config);

    app.post<{ Params: Params }>(
      "/:slug/portal/license-keys/:id/activations/:activationId/deactivate",
      { schema: { hide: true } },
      asCustomer(context, async (visit, request, reply) => {
        const key = await services.licenseKeys.getForCustomer(request.params.id!, visit.session);
        await services.licenseKeys.deactivate(
          { organization_id: visit.organization.id, key: key.key, activation_id: request.params.activationId! },
          [visit.organization.id],
        );
        return backTo(reply, visit, "activation-deactivated", "license-keys");
      }),
    );

    for (const [action, cancel, notice] of [
      ["cancel", true, "subscription-cancelled"],
      ["uncancel", false, "subscription-resumed"],
    ] as const) {
      app.post<{ Params: Params }>(
        `/:slug/portal/subscriptions/:id/${action}`,
        { schema: { hide: true } },
        asCustomer(context, async (visit, request, reply) => {
          await services.subscriptions.update(request.params.id!, { cancel_at_period_end: cancel }, visit.session);
          return backTo(reply, visit, notice, "subscriptions");
        }),
      );
    }

    app.post<{ Params: Params }>(
      "/:slug/portal/payment-method",
      { schema: { hide: true } },
      asCustomer(context, async (visit, request, reply, theme) => {
        const token = (request.body as { confirmation_token_id?: unknown } | null)?.confirmation_token_id;
        if (typeof token !== "string" || token === "" || token.length > 256)
          return overview(context, reply, visit, theme, { code: 422, problem: "Enter the card to use." });
        const returnUrl = `${request.protocol}://${request.headers.host ?? ""}${portalPath(visit.organization.slug)}`;
        const added = await services.paymentMethods.add(
          { confirmation_token_id: token, set_default: true, return_url: returnUrl },
          visit.session,
        );
        // Nothing is saved until the bank confirms the card: the page opens its check, then posts the confirm below.
        if (added.status === "requires_action")
          return overview(context, reply, visit, theme, { cardAuthentication: setupIntentOf(added.client_secret) });
        return backTo(reply, visit, "payment-method-saved", "payment-method");
      }),
    );

    app.post<{ Params: Params }>(
      "/:slug/portal/payment-method/confirm",
      { schema: { hide: true } },
      asCustomer(context, async (visit, request, reply, theme) => {
        const setupIntentId = (request.body as { setup_intent_id?: unknown } | null)?.setup_intent_id;
        if (typeof setupIntentId !== "string" || setupIntentId === "" || setupIntentId.length > 256)
          return overview(context, reply, visit, theme, { code: 422, problem: "Enter the card to use." });
        const confirmed = await services.paymentMethods.confirm({ setup_intent_id: setupIntentId, set_default: true }, visit.session);
        if (confirmed.status === "requires_action")
          return overview(context, reply, visit, theme, {
            code: 400,
            problem: NOT_CONFIRMED,
            cardAuthentication: setupIntentOf(confirmed.client_secret),
          });
        return backTo(reply, visit, "payment-method-saved", "payment-method");
      }),
    );
  };
