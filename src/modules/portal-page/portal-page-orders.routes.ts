import type { FastifyPluginAsync } from "fastify";
import { RequestValidationError } from "../../http/errors.ts";
import { billingDetails, billingFormFrom, fieldErrorsOf, readBillingForm } from "./portal-page.forms.ts";
import { visibilityOf } from "./portal-page.data.ts";
import { creditNotesPage, invoicePage } from "./portal-page-orders.render.ts";
import { portalPath } from "./portal-page.session.ts";
import { asCustomer, sendPage, shellOf, statusPage, type Params, type PortalPageContext } from "./portal-page.visit.ts";

/** A document being rendered: the page asks again this often. */
const POLL_MS = 1500;

/** The portal's pages of one order: its invoice (asked for with billing details), its receipt, its credit notes. */
export const portalPageOrderRoutes =
  (context: PortalPageContext): FastifyPluginAsync =>
  async (app) => {
    const { services } = context;

    app.get<{ Params: Params }>(
      "/:slug/portal/orders/:id/invoice",
      { schema: { hide: true } },
      asCustomer(context, async (visit, request, reply, theme) => {
        const id = request.params.id!;
        const order = await services.orders.get(id, visit.session);
        if (order.is_invoice_generated) return reply.redirect((await services.documents.invoice(id, visibilityOf(visit))).url, 303);
        const pending = (request.query as { pending?: unknown }).pending === "1";
        const customer = await services.customers.get(visit.session);
        const values =
          order.billing_name !== null || order.billing_address !== null
            ? billingFormFrom(order.billing_name, order.billing_address, null)
            : billingFormFrom(customer.billing_name ?? customer.name, customer.billing_address, null);
        return sendPage(context, reply, 200, (assets) =>
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
      asCustomer(context, async (visit, request, reply, theme) => {
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
          return sendPage(context, reply, 422, (assets) =>
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
      asCustomer(context, async (visit, request, reply, theme) => {
        const order = await services.orders.get(request.params.id!, visit.session);
        const notes = await services.documents.creditNotes(order.id, visibilityOf(visit));
        return sendPage(context, reply, 200, (assets) => creditNotesPage(shellOf(visit.organization, theme, assets), { order, notes }));
      }),
    );

    app.get<{ Params: Params }>(
      "/:slug/portal/orders/:id/receipt",
      { schema: { hide: true } },
      asCustomer(context, async (visit, request, reply, theme) => {
        const link = await services.documents.receipt(request.params.id!, visibilityOf(visit));
        if (link) return reply.redirect(link.url, 303);
        return statusPage(
          context,
          reply,
          200,
          { organization: visit.organization, theme },
          { heading: "Your receipt is being prepared", message: "It opens here as soon as it is ready.", pollMs: POLL_MS },
        );
      }),
    );
  };
