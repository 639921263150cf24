import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { setRequestClockOffset } from "../../values/clock.ts";
import { AppError, RequestValidationError, ResourceNotFound } from "../../http/errors.ts";
import { sendHtml, themeOf, type PageAssets, type Theme } from "../../pages/html-page.ts";
import type { WebAssets } from "../../pages/web-assets.ts";
import {
  billingDetails,
  billingFormFrom,
  fieldErrorsOf,
  readBillingForm,
  type BillingForm,
  type FieldErrors,
} from "./portal-page.forms.ts";
import { loadOverview, visibilityOf, type PortalPageServices } from "./portal-page.data.ts";
import { creditNotesPage, invoicePage, overviewPage, portalStatusPage, type PortalShell } from "./portal-page.render.ts";
import { SESSION_COOKIE, portalPath, readCookie, sessionCookie, type PortalOrganization, type PortalVisit } from "./portal-page.session.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const FORM_BODY_LIMIT = 16 * 1024;
/** The portal's address holds no secret once signed in, and its forms post to it. */
const PAGE_HEADERS = { referrerPolicy: "same-origin" } as const;
/** A document being rendered: the page asks again this often. */
const POLL_MS = 1500;

/** What a redirect after an action says on the portal: fixed sentences, never text from the address. */
const NOTICES = {
  "billing-saved": "Your billing details are saved.",
  "subscription-cancelled": "Your subscription is cancelled. It stays active until the end of the current period.",
  "subscription-resumed": "Your subscription will renew as before.",
  "activation-deactivated": "The activation is removed.",
  "payment-method-saved": "Your payment method is saved.",
} as const;
type Notice = keyof typeof NOTICES;

interface Params {
  slug: string;
  id?: string;
  activationId?: string;
}

const noticeOf = (query: unknown): string | null => {
  const done = typeof query === "object" && query !== null ? (query as { done?: unknown }).done : null;
  return typeof done === "string" && done in NOTICES ? NOTICES[done as Notice] : null;
};

/** The page of orders asked for: a whole number from 1 (anything else shows the first page). */
const ordersPageOf = (query: unknown): number => {
  const asked = typeof query === "object" && query !== null ? (query as { orders_page?: unknown }).orders_page : undefined;
  return typeof asked === "string" && /^[1-9][0-9]{0,5}$/.test(asked) ? Number(asked) : 1;
};

/**
 * Another site's form must not act as the customer: a POST comes from this origin, as the browser
 * says in `Sec-Fetch-Site`, or else in `Origin`.
 */
function sameOrigin(request: FastifyRequest): boolean {
  const site = request.headers["sec-fetch-site"];
  if (site !== undefined) return site === "same-origin";
  const origin = request.headers.origin;
  if (typeof origin !== "string") return false;
  try {
    const from = new URL(origin);
    // The Host header may name the scheme's default port, which an origin leaves out.
    return from.host === new URL(`${from.protocol}//${request.headers.host ?? ""}`).host;
  } catch {
    return false;
  }
}

/**
 * The customer portal at the `customer_portal_url` of a customer session (`/{slug}/portal`). The
 * link's token is exchanged for an HttpOnly cookie scoped to the portal, and the address loses it;
 * every page is rendered on the server from the customer-portal services, every action is a form
 * posted to the portal and answered with a redirect (or the page again with what to fix).
 */
export const portalPageRoutes =
  (services: PortalPageServices, webAssets: WebAssets): FastifyPluginAsync =>
  async (app) => {
    app.addContentTypeParser(
      "application/x-www-form-urlencoded",
      { parseAs: "string", bodyLimit: FORM_BODY_LIMIT },
      (_request, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(body as string)));
      },
    );

    /** Renders a page with the portal's inline script and styles, and sends it with their hashes. */
    const sendPage = async (reply: FastifyReply, code: number, render: (assets: PageAssets) => string) => {
      const assets = await webAssets.forPage("portal-page");
      return sendHtml(reply, code, render(assets), assets, PAGE_HEADERS);
    };
    const shellOf = (organization: PortalOrganization, theme: Theme, assets: PageAssets): PortalShell => ({ organization, theme, assets });
    const status = (
      reply: FastifyReply,
      code: number,
      organization: PortalOrganization | null,
      theme: Theme,
      heading: string,
      message: string,
      pollMs?: number,
    ) => sendPage(reply, code, (assets) => portalStatusPage({ organization, theme, assets }, { heading, message, link: null, pollMs }));

    /** A token that opens no visit: no (live) session, or a member session without billing access. */
    const refused = (reply: FastifyReply, organization: PortalOrganization, theme: Theme, reason: "no-session" | "not-billing") =>
      reason === "not-billing"
        ? status(reply, 403, organization, theme, "Not available", "Only owners and billing managers can access billing features.")
        : signInNeeded(reply, organization, theme);

    const signInNeeded = (reply: FastifyReply, organization: PortalOrganization, theme: Theme) =>
      status(
        reply,
        401,
        organization,
        theme,
        "Sign-in link needed",
        `Open the customer portal from the link ${organization.name} sent you. Links expire after a while; ask for a new one if yours has.`,
      );

    async function overview(
      reply: FastifyReply,
      visit: PortalVisit,
      theme: Theme,
      options: {
        code?: number;
        notice?: string | null;
        problem?: string | null;
        billing?: { values: BillingForm; errors: FieldErrors };
        ordersPage?: number;
      } = {},
    ) {
      const data = await loadOverview(services, visit.session, options.ordersPage);
      return sendPage(reply, options.code ?? 200, (assets) =>
        overviewPage(shellOf(visit.organization, theme, assets), {
          ...data,
          returnUrl: visit.returnUrl,
          paymentForm: services.paymentForm,
          notice: options.notice ?? null,
          problem: options.problem ?? null,
          billing: options.billing ?? {
            values: billingFormFrom(data.customer.billing_name, data.customer.billing_address, data.customer.tax_id?.[0] ?? null),
            errors: {},
          },
        }),
      );
    }

    /**
     * A handler acting as the session's customer: the organization of the address, the session of
     * its cookie, that organization's clock. A refusal the handler does not handle itself is shown
     * on the portal (unknown ids as the 404 page), never as a 500.
     */
    const asCustomer =
      (
        handler: (
          visit: PortalVisit,
          request: FastifyRequest<{ Params: Params }>,
          reply: FastifyReply,
          theme: Theme,
        ) => Promise<FastifyReply>,
      ) =>
      async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => {
        const theme = themeOf(request.query);
        const organization = await services.sessions.organization(request.params.slug);
        if (!organization) return status(reply, 404, null, theme, "Portal not found", "There is no customer portal at this address.");
        const entry = await services.sessions.enter(organization, readCookie(request.headers.cookie, SESSION_COOKIE));
        if ("refused" in entry) return refused(reply, organization, theme, entry.refused);
        const { visit } = entry;
        setRequestClockOffset(visit.clockOffsetMs);
        if (request.method === "POST" && !sameOrigin(request))
          return status(reply, 403, organization, theme, "Not allowed", "This form was sent from another site and was not accepted.");
        const ids = [request.params.id, request.params.activationId].filter((id) => id !== undefined);
        try {
          if (!ids.every((id) => UUID.test(id))) throw new ResourceNotFound();
          return await handler(visit, request, reply, theme);
        } catch (error) {
          if (error instanceof ResourceNotFound)
            return status(reply, 404, organization, theme, "Not found", "This item does not exist or is not yours.");
          if (error instanceof AppError) return overview(reply, visit, theme, { code: error.statusCode, problem: error.detail });
          throw error;
        }
      };

    const backTo = (reply: FastifyReply, visit: PortalVisit, notice: Notice, anchor: string) =>
      reply.redirect(`${portalPath(visit.organization.slug)}?done=${notice}#${anchor}`, 303);

    // The link of a customer session: its token becomes the cookie, and the address loses it.
    app.get<{ Params: Params; Querystring: Record<string, unknown> }>(
      "/:slug/portal",
      { schema: { hide: true } },
      async (request, reply) => {
        const token = request.query.customer_session_token;
        if (typeof token !== "string")
          return asCustomer(async (visit, req, res, theme) =>
            overview(res, visit, theme, { notice: noticeOf(req.query), ordersPage: ordersPageOf(req.query) }),
          )(request, reply);
        const theme = themeOf(request.query);
        const organization = await services.sessions.organization(request.params.slug);
        if (!organization) return status(reply, 404, null, theme, "Portal not found", "There is no customer portal at this address.");
        const entry = await services.sessions.enter(organization, token);
        if ("refused" in entry) return refused(reply, organization, theme, entry.refused);
        const target = `${portalPath(organization.slug)}${theme ? `?theme=${theme}` : ""}`;
        return reply
          .header("set-cookie", sessionCookie(organization.slug, token, request.protocol === "https"))
          .header("referrer-policy", "no-referrer")
          .header("cache-control", "no-store")
          .redirect(target, 303);
      },
    );

    app.post<{ Params: Params }>(
      "/:slug/portal/billing",
      { schema: { hide: true } },
      asCustomer(async (visit, request, reply, theme) => {
        const values = readBillingForm(request.body);
        try {
          const details = billingDetails(values, false);
          await services.customers.update(visit.session, { ...details, tax_id: values.tax_id === "" ? null : values.tax_id });
        } catch (error) {
          if (!(error instanceof RequestValidationError)) throw error;
          const { errors, rest } = fieldErrorsOf(error);
          return overview(reply, visit, theme, {
            code: 422,
            problem: rest ?? "Check the billing details below.",
            billing: { values, errors },
          });
        }
        return backTo(reply, visit, "billing-saved", "billing");
      }),
    );

    app.get<{ Params: Params }>(
      "/:slug/portal/orders/:id/invoice",
      { schema: { hide: true } },
      asCustomer(async (visit, request, reply, theme) => {
        const id = request.params.id!;
        const order = await services.orders.get(id, visit.session);
        if (order.is_invoice_generated) return reply.redirect((await services.documents.invoice(id, visibilityOf(visit))).url, 303);
        const pending = (request.query as { pending?: unknown }).pending === "1";
        const customer = await services.customers.get(visit.session);
        const values =
          order.billing_name !== null || order.billing_address !== null
            ? billingFormFrom(order.billing_name, order.billing_address, null)
            : billingFormFrom(customer.billing_name ?? customer.name, customer.billing_address, null);
        return sendPage(reply, 200, (assets) =>
          invoicePage(shellOf(visit.organization, theme, assets), {
            order,
            values,
            errors: {},
            problem: null,
            pending,
          }),
        );
      }),
    );

    app.post<{ Params: Params }>(
      "/:slug/portal/orders/:id/invoice",
      { schema: { hide: true } },
      asCustomer(async (visit, request, reply, theme) => {
        const id = request.params.id!;
        const order = await services.orders.get(id, visit.session);
        const values = readBillingForm(request.body);
        try {
          const details = billingDetails(values, true);
          const unchanged =
            order.billing_name === details.billing_name &&
            JSON.stringify(billingFormFrom(null, order.billing_address, null)) ===
              JSON.stringify(billingFormFrom(null, details.billing_address, null));
          if (!unchanged) await services.orders.update(id, details, visit.session);
          await services.documents.requestInvoice(id, visibilityOf(visit));
        } catch (error) {
          if (!(error instanceof RequestValidationError)) throw error;
          const { errors, rest } = fieldErrorsOf(error);
          return sendPage(reply, 422, (assets) =>
            invoicePage(shellOf(visit.organization, theme, assets), {
              order,
              values,
              errors,
              problem: rest ?? "Check the billing details below.",
              pending: false,
            }),
          );
        }
        return reply.redirect(`${portalPath(visit.organization.slug)}/orders/${id}/invoice?pending=1`, 303);
      }),
    );

    app.get<{ Params: Params }>(
      "/:slug/portal/orders/:id/credit-notes",
      { schema: { hide: true } },
      asCustomer(async (visit, request, reply, theme) => {
        const order = await services.orders.get(request.params.id!, visit.session);
        const notes = await services.documents.creditNotes(order.id, visibilityOf(visit));
        return sendPage(reply, 200, (assets) => creditNotesPage(shellOf(visit.organization, theme, assets), { order, notes }));
      }),
    );

    app.get<{ Params: Params }>(
      "/:slug/portal/orders/:id/receipt",
      { schema: { hide: true } },
      asCustomer(async (visit, request, reply, theme) => {
        const link = await services.documents.receipt(request.params.id!, visibilityOf(visit));
        if (link) return reply.redirect(link.url, 303);
        return status(
          reply,
          200,
          visit.organization,
          theme,
          "Your receipt is being prepared",
          "It opens here as soon as it is ready.",
          POLL_MS,
        );
      }),
    );

    app.post<{ Params: Params }>(
      "/:slug/portal/license-keys/:id/activations/:activationId/deactivate",
      { schema: { hide: true } },
      asCustomer(async (visit, request, reply) => {
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
        asCustomer(async (visit, request, reply) => {
          await services.subscriptions.update(request.params.id!, { cancel_at_period_end: cancel }, visit.session);
          return backTo(reply, visit, notice, "subscriptions");
        }),
      );
    }

    app.post<{ Params: Params }>(
      "/:slug/portal/payment-method",
      { schema: { hide: true } },
      asCustomer(async (visit, request, reply, theme) => {
        const token = (request.body as { confirmation_token_id?: unknown } | null)?.confirmation_token_id;
        if (typeof token !== "string" || token === "" || token.length > 256)
          return overview(reply, visit, theme, { code: 422, problem: "Enter the card to use." });
        const returnUrl = `${request.protocol}://${request.headers.host ?? ""}${portalPath(visit.organization.slug)}`;
        await services.paymentMethods.add({ confirmation_token_id: token, set_default: true, return_url: returnUrl }, visit.session);
        return backTo(reply, visit, "payment-method-saved", "payment-method");
      }),
    );
  };
