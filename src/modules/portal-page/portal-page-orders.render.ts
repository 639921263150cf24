import { escapeHtml as e } from "../../pages/html-page.ts";
import type { CustomerOrder } from "../customer-portal/portal-orders.schemas.ts";
import type { ListedCreditNote } from "../orders/orders.steps.ts";
import type { BillingForm, FieldErrors } from "./portal-page.forms.ts";
import { alertBox, billingFields, day, header, list, money, page, type PortalShell } from "./portal-page.render.ts";
import { portalPath } from "./portal-page.session.ts";

// The pages of one order in the customer portal, on the portal's layout.

/** The invoice of an order that has none yet: the billing details it will carry, then generate. */
export function invoicePage(
  shell: PortalShell,
  input: {
    order: CustomerOrder;
    values: BillingForm;
    errors: FieldErrors;
    problem: string | null;
    pending: boolean;
  },
): string {
  const base = portalPath(shell.organization.slug);
  const back = `<p><a href="${e(`${base}#orders`)}">Back to your orders</a></p>`;
  if (input.pending)
    return page(
      shell,
      "Invoice",
      { view: "status", pollMs: 1500 },
      `<main class="portal status" aria-busy="true">${header(shell.organization, "Invoice")}<h2>Your invoice is being prepared</h2><p role="status">It opens here as soon as it is ready.</p>${back}</main>`,
    );
  const body = `<main class="portal">
${header(shell.organization, "Invoice")}
${alertBox(input.problem)}
<section class="panel" aria-labelledby="invoice-title"><h2 id="invoice-title">Invoice for ${e(input.order.product?.name ?? input.order.description)}</h2>
<p>${e(day(input.order.created_at))} · ${e(money(input.order.total_amount, input.order.currency))}</p>
<p>The invoice shows the billing name and address below. Check them before generating it: they cannot be changed afterwards.</p>
<form method="post" action="${e(`${base}/orders/${input.order.id}/invoice`)}" class="stack" novalidate>
${billingFields(input.values, input.errors, true)}
<button type="submit" class="button primary">Generate invoice</button>
</form>
${back}</section>
</main>`;
  return page(shell, "Invoice", { view: "status", pollMs: null }, body);
}

/** An invoiced order's credit notes, one per refund, oldest first; the page asks again while one is being rendered. */
export function creditNotesPage(shell: PortalShell, input: { order: CustomerOrder; notes: ListedCreditNote[] }): string {
  const base = portalPath(shell.organization.slug);
  const items = input.notes.map((note) => {
    const id = `credit-note-${note.number}`;
    const download = note.url
      ? `<a href="${e(note.url)}" aria-describedby="${e(id)}">Download</a>`
      : `<span class="muted" role="status">Being prepared</span>`;
    return `<li class="item"><h3 id="${e(id)}">${e(note.number)}</h3><dl class="facts"><div><dt>Date</dt><dd>${e(
      day(note.created_at.toISOString()),
    )}</dd></div><div><dt>Credited</dt><dd>${e(money(-note.refunded_amount, input.order.currency))}</dd></div></dl><p class="links">${download}</p></li>`;
  });
  const pending = input.notes.some((note) => note.url === null);
  const body = `<main class="portal"${pending ? ' aria-busy="true"' : ""}>
${header(shell.organization, "Credit notes")}
<section class="panel" aria-labelledby="credit-notes-title"><h2 id="credit-notes-title">Credit notes for ${e(
    input.order.product?.name ?? input.order.description,
  )}</h2>
<p>${e(day(input.order.created_at))} · ${e(money(input.order.total_amount, input.order.currency))}</p>
${list(items, "This order has no credit notes.")}
<p><a href="${e(`${base}#orders`)}">Back to your orders</a></p></section>
</main>`;
  return page(shell, "Credit notes", { view: "status", pollMs: pending ? 1500 : null }, body);
}
