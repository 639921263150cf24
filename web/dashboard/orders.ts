// Orders: the list with the API's filters and sorts, and one order in full (items, tax, payments,
// refunds, invoice and receipt) with its refund form. All through /v1/orders/, /v1/payments/ and
// /v1/refunds/.
import { get, list, request } from "./api.ts";
import { field, formOf, input, minorUnits, onSubmit, selectField, type Field } from "./forms.ts";
import { pagedTable, pageOf, pageQuery } from "./pager.ts";
import { picker } from "./picker.ts";
import type { PageContext } from "./router.ts";
import { guard } from "./scopes.ts";
import { button, dateTime, errorNotice, facts, fill, h, link, loading, minorPerMajor, money, notice, pageHeading, table } from "./ui.ts";

export interface Order {
  id: string;
  created_at: string;
  status: string;
  billing_reason: string;
  currency: string;
  subtotal_amount: number;
  discount_amount: number;
  net_amount: number;
  tax_amount: number;
  total_amount: number;
  refunded_amount: number;
  refunded_tax_amount: number;
  invoice_number: string | null;
  is_invoice_generated: boolean;
  customer: { email: string; name: string | null };
  product: { name: string } | null;
  items: { label: string; amount: number }[];
}

const STATUSES = [
  ["", "Any status"],
  ["paid", "Paid"],
  ["pending", "Pending"],
  ["refunded", "Refunded"],
  ["partially_refunded", "Partially refunded"],
  ["void", "Void"],
] as const;
const BILLING = [
  ["", "Any billing"],
  ["one_time", "One-time"],
  ["recurring", "Subscription"],
] as const;
const SORTS = [
  ["-created_at", "Newest first"],
  ["created_at", "Oldest first"],
  ["-amount", "Largest amount"],
  ["amount", "Smallest amount"],
  ["status", "Status"],
  ["customer", "Customer"],
] as const;

export const statusText = (status: string): string => status.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());

interface ProductName {
  id: string;
  name: string;
}

export async function ordersPage({ main, query, navigate }: PageContext): Promise<void> {
  const productId = query.get("product_id");
  const results = h("div", { "aria-live": "polite" }, loading());
  fill(main, pageHeading("Orders"), results);
  const [orders, filtered] = await Promise.all([
    list<Order>("orders/", {
      status: query.get("status"),
      product_billing_type: query.get("product_billing_type"),
      product_id: productId,
      sorting: query.get("sorting") ?? "-created_at",
      ...pageQuery(query),
    }),
    // The address names the product filtered on by its id: the picker shows its name.
    productId ? get<ProductName>(`products/${encodeURIComponent(productId)}`) : null,
  ]);
  const status = selectField("Status", "status", STATUSES, query.get("status") ?? "");
  const billing = selectField("Billing", "product_billing_type", BILLING, query.get("product_billing_type") ?? "");
  const sorting = selectField("Sort", "sorting", SORTS, query.get("sorting") ?? "-created_at");
  // A change of filter or sort starts again at the first page.
  const apply = (product: readonly ProductName[]) => {
    const next = new URLSearchParams();
    for (const f of [status, billing, sorting]) if (f.control.value) next.set(f.control.name, f.control.value);
    if (product[0]) next.set("product_id", product[0].id);
    navigate(`/dashboard/orders${next.size ? `?${next}` : ""}`);
  };
  const product = picker<ProductName>({
    label: "Product",
    hint: "Any product when none is chosen.",
    path: "products/",
    filters: { sorting: "name" },
    noun: ["product", "products"],
    text: (p) => p.name,
    multiple: false,
    chosen: filtered?.ok ? [filtered.body] : [],
    changed: apply,
  });
  for (const f of [status, billing, sorting]) f.control.addEventListener("change", () => apply(product.chosen()));
  fill(
    main,
    pageHeading("Orders"),
    h("div", { class: "toolbar filters" }, status.wrapper, billing.wrapper, product.field.wrapper, sorting.wrapper),
    results,
  );
  if (!orders.ok) return fill(results, errorNotice(orders.error));
  fill(
    results,
    pagedTable(
      "Orders",
      [
        { label: "Date", cell: (o: Order) => link(`/dashboard/orders/${o.id}`, dateTime(o.created_at)) },
        { label: "Customer", cell: (o: Order) => o.customer.email },
        { label: "Product", cell: (o: Order) => o.product?.name ?? "—" },
        { label: "Status", cell: (o: Order) => statusText(o.status) },
        { label: "Total", cell: (o: Order) => money(o.total_amount, o.currency), numeric: true },
      ],
      orders.body,
      pageOf(query),
      "No orders match.",
    ),
  );
}

interface Payment {
  id: string;
  created_at: string;
  status: string;
  amount: number;
  currency: string;
  method: string;
  decline_message: string | null;
}
interface Refund {
  id: string;
  created_at: string;
  status: string;
  reason: string;
  amount: number;
  tax_amount: number;
  currency: string;
}

/** A document's link: asked for when wanted (the API answers its address, or 202 while it is prepared). */
function documentButton(label: string, path: string, generate: string | null): HTMLElement {
  const slot = h("span", { class: "document" });
  const ask = button(`Get ${label.toLowerCase()}`, { class: "button button-quiet" });
  ask.addEventListener("click", () => {
    ask.disabled = true;
    void request<{ url: string } | null>("GET", path).then(async (result) => {
      ask.disabled = false;
      if (result.ok && result.body)
        return slot.replaceChildren(
          h("a", { href: result.body.url, target: "_blank", rel: "noopener" }, `Open ${label.toLowerCase()} (PDF)`),
        );
      if (result.ok)
        return slot.replaceChildren(ask, notice("info", `The ${label.toLowerCase()} is being prepared. Try again in a moment.`));
      if (result.error.status === 404 && generate) {
        const made = await request("POST", generate, {});
        return slot.replaceChildren(
          ask,
          made.ok ? notice("info", `The ${label.toLowerCase()} is being prepared. Try again in a moment.`) : errorNotice(made.error),
        );
      }
      slot.replaceChildren(ask, errorNotice(result.error));
    });
  });
  slot.append(ask);
  return slot;
}

export async function orderPage({ main, params, data, navigate }: PageContext): Promise<void> {
  fill(main, loading());
  const [answer, payments, refunds] = await Promise.all([
    get<Order>(`orders/${params.id}`),
    list<Payment>("payments/", { order_id: params.id, limit: 100 }),
    list<Refund>("refunds/", { order_id: params.id, limit: 100 }),
  ]);
  if (!answer.ok) return fill(main, pageHeading("Order"), errorNotice(answer.error), h("p", {}, link("/dashboard/orders", "All orders")));
  const order = answer.body;
  const m = (amount: number) => money(amount, order.currency);
  const lines = [
    ...order.items.map((item) => ({ label: item.label, amount: m(item.amount) })),
    { label: "Subtotal", amount: m(order.subtotal_amount) },
    ...(order.discount_amount ? [{ label: "Discount", amount: `−${m(order.discount_amount)}` }] : []),
    { label: "Tax", amount: m(order.tax_amount) },
    { label: "Total", amount: m(order.total_amount) },
    ...(order.refunded_amount
      ? [
          { label: "Refunded (before tax)", amount: `−${m(order.refunded_amount)}` },
          { label: "Tax refunded", amount: `−${m(order.refunded_tax_amount)}` },
        ]
      : []),
  ];
  const refundable = order.net_amount - order.refunded_amount;
  const perMajor = minorPerMajor(order.currency);
  const amount = field(
    `Amount before tax (${order.currency.toUpperCase()})`,
    input({ type: "text", name: "amount", inputmode: "decimal", value: String(refundable / perMajor), required: true }),
    `Up to ${m(refundable)}; the tax on it is refunded with it.`,
  );
  const reason = selectField(
    "Reason",
    "reason",
    [
      ["customer_request", "Customer request"],
      ["duplicate", "Duplicate"],
      ["fraudulent", "Fraudulent"],
      ["service_disruption", "Service disruption"],
      ["satisfaction_guarantee", "Satisfaction guarantee"],
      ["other", "Other"],
    ],
    "customer_request",
  );
  const revoke = field("Revoke the benefits this order granted", input({ type: "checkbox", name: "revoke_benefits" }));
  const parts = formOf("Refund", "Refund", amount.wrapper, reason.wrapper, revoke.wrapper);
  const refusal = guard(data, parts.submit, "refunds:write");
  if (refusal) parts.submit.after(h("span", { class: "hint refusal" }, ` ${refusal} Refunds need it.`));
  if (refundable <= 0 && !refusal) parts.submit.disabled = true;
  const fields: Record<string, Field> = { amount, reason };
  onSubmit(
    parts,
    fields,
    () => {
      const minor = minorUnits(amount.control.value, perMajor);
      if (minor === null || minor <= 0) {
        parts.messages.replaceChildren(notice("error", "Enter the amount to refund, like 12.50."));
        return null;
      }
      return request("POST", "refunds/", {
        order_id: order.id,
        amount: minor,
        reason: reason.control.value,
        revoke_benefits: (revoke.control as HTMLInputElement).checked,
      });
    },
    () => navigate(`/dashboard/orders/${order.id}`),
  );

  fill(
    main,
    pageHeading(`Order of ${order.product?.name ?? "a product"}`),
    h("p", {}, link("/dashboard/orders", "All orders")),
    facts([
      ["Status", statusText(order.status)],
      ["Date", dateTime(order.created_at)],
      ["Customer", order.customer.name ? `${order.customer.name} <${order.customer.email}>` : order.customer.email],
      ["Billing", statusText(order.billing_reason)],
      ["Invoice number", order.invoice_number ?? "—"],
      [
        "Documents",
        h(
          "span",
          { class: "documents" },
          documentButton("Receipt", `orders/${order.id}/receipt`, null),
          " ",
          documentButton("Invoice", `orders/${order.id}/invoice`, `orders/${order.id}/invoice`),
        ),
      ],
    ]),
    table(
      "Items, tax and total",
      [
        { label: "Line", cell: (l: (typeof lines)[number]) => l.label },
        { label: "Amount", cell: (l: (typeof lines)[number]) => l.amount, numeric: true },
      ],
      lines,
    ),
    payments.ok
      ? table(
          "Payments",
          [
            { label: "Date", cell: (p: Payment) => dateTime(p.created_at) },
            {
              label: "Status",
              cell: (p: Payment) => (p.decline_message ? `${statusText(p.status)}: ${p.decline_message}` : statusText(p.status)),
            },
            { label: "Method", cell: (p: Payment) => p.method },
            { label: "Amount", cell: (p: Payment) => money(p.amount, p.currency), numeric: true },
          ],
          payments.body.items,
          "No payments.",
        )
      : errorNotice(payments.error),
    refunds.ok
      ? table(
          "Refunds",
          [
            { label: "Date", cell: (r: Refund) => dateTime(r.created_at) },
            { label: "Status", cell: (r: Refund) => statusText(r.status) },
            { label: "Reason", cell: (r: Refund) => statusText(r.reason) },
            { label: "Amount", cell: (r: Refund) => money(r.amount, r.currency), numeric: true },
            { label: "Tax", cell: (r: Refund) => money(r.tax_amount, r.currency), numeric: true },
          ],
          refunds.body.items,
          "No refunds.",
        )
      : errorNotice(refunds.error),
    h("h2", {}, "Refund"),
    parts.form,
  );
}
