// Webhooks: the endpoints (add one), and each endpoint's deliveries with status code, latency and
// response body, each event redeliverable. All through /v1/webhooks/.
import { currentOrganizationId, get, list, request } from "./api.ts";
import { formOf, onSubmit, textField, type Field } from "./forms.ts";
import { pagedTable, pageOf, pageQuery, type Pagination } from "./pager.ts";
import type { PageContext } from "./router.ts";
import { requireScope, requireScopeForForm } from "./scopes.ts";
import { button, dateTime, errorNotice, fill, h, link, loading, notice, pageHeading } from "./ui.ts";

interface Endpoint {
  id: string;
  url: string;
  name?: string | null;
  format: string;
  events: string[];
  enabled: boolean;
}
interface Delivery {
  id: string;
  created_at: string;
  succeeded: boolean;
  http_code: number | null;
  response: string | null;
  duration_ms?: number;
  webhook_event: { id: string; type: string };
}

/** Every event type the API accepts: the create form subscribes the endpoint to all of them. */
const ALL_EVENTS = [
  "order.created",
  "order.paid",
  "order.updated",
  "order.refunded",
  "refund.created",
  "refund.updated",
  "product.created",
  "product.updated",
  "subscription.created",
  "subscription.updated",
  "subscription.active",
  "subscription.canceled",
  "subscription.uncanceled",
  "subscription.revoked",
  "customer.created",
  "customer.updated",
  "customer.deleted",
  "customer.state_changed",
  "checkout.created",
  "checkout.updated",
  "benefit.created",
  "benefit.updated",
  "benefit_grant.created",
  "benefit_grant.updated",
  "benefit_grant.revoked",
];

export async function webhooksPage({ main, query, data, navigate }: PageContext): Promise<void> {
  const results = h("div", { "aria-live": "polite" }, loading());
  const url = textField("Endpoint URL", "url", "", { type: "url", required: true, placeholder: "https://example.com/webhooks" });
  const name = textField("Name", "name", "");
  const parts = formOf(
    "New endpoint",
    "Add endpoint",
    url.wrapper,
    name.wrapper,
    h("p", { class: "hint" }, "The endpoint receives every order, refund, subscription, customer, checkout, product and benefit event."),
  );
  requireScopeForForm(data, "webhooks:write", parts);
  const fields: Record<string, Field> = { url, name };
  onSubmit(
    parts,
    fields,
    () =>
      request<Endpoint>("POST", "webhooks/endpoints", {
        organization_id: currentOrganizationId(),
        url: url.control.value,
        name: name.control.value || null,
        format: "raw",
        events: ALL_EVENTS,
      }),
    (endpoint) => navigate(`/dashboard/webhooks/${endpoint.id}`),
  );
  fill(main, pageHeading("Webhooks"), results, h("h2", {}, "Add an endpoint"), parts.form);
  const answer = await list<Endpoint>("webhooks/endpoints", pageQuery(query));
  if (!answer.ok) return fill(results, errorNotice(answer.error));
  fill(
    results,
    pagedTable(
      "Endpoints",
      [
        { label: "URL", cell: (e: Endpoint) => link(`/dashboard/webhooks/${e.id}`, e.url) },
        { label: "Name", cell: (e: Endpoint) => e.name ?? "—" },
        { label: "Events", cell: (e: Endpoint) => String(e.events.length), numeric: true },
        { label: "State", cell: (e: Endpoint) => (e.enabled ? "Enabled" : "Disabled") },
      ],
      answer.body,
      pageOf(query),
      "No endpoints yet.",
    ),
  );
}

export async function webhookEndpointPage({ main, params, query, data }: PageContext): Promise<void> {
  fill(main, loading());
  const [endpoint, deliveries] = await Promise.all([
    get<Endpoint>(`webhooks/endpoints/${params.id}`),
    get<{ items: Delivery[]; pagination: Pagination }>("webhooks/deliveries", { endpoint_id: params.id, ...pageQuery(query) }),
  ]);
  if (!endpoint.ok)
    return fill(
      main,
      pageHeading("Webhook endpoint"),
      errorNotice(endpoint.error),
      h("p", {}, link("/dashboard/webhooks", "All endpoints")),
    );
  const messages = h("div", { class: "messages", "aria-live": "polite" });
  const redeliver = (delivery: Delivery): HTMLElement => {
    const again = button("Redeliver", {
      class: "button button-quiet",
      "aria-label": `Redeliver ${delivery.webhook_event.type} of ${dateTime(delivery.created_at)}`,
    });
    requireScope(data, "webhooks:write", again);
    again.addEventListener("click", () => {
      again.disabled = true;
      void request("POST", `webhooks/events/${delivery.webhook_event.id}/redeliver`).then((result) => {
        again.disabled = false;
        messages.replaceChildren(
          result.ok
            ? notice("success", `The ${delivery.webhook_event.type} event is scheduled to be sent again.`)
            : errorNotice(result.error),
        );
      });
    });
    return again;
  };
  fill(
    main,
    pageHeading(endpoint.body.name || endpoint.body.url),
    h("p", {}, link("/dashboard/webhooks", "All endpoints")),
    h("p", {}, `${endpoint.body.url} · ${endpoint.body.enabled ? "enabled" : "disabled"} · ${endpoint.body.events.length} event types`),
    messages,
    // Said once above the table rather than beside every row's button.
    requireScope(data, "webhooks:write"),
    deliveries.ok
      ? pagedTable(
          "Deliveries",
          [
            { label: "Date", cell: (d: Delivery) => dateTime(d.created_at) },
            { label: "Event", cell: (d: Delivery) => d.webhook_event.type },
            { label: "Status", cell: (d: Delivery) => `${d.http_code ?? "No answer"}${d.succeeded ? " (succeeded)" : " (failed)"}` },
            { label: "Latency", cell: (d: Delivery) => (d.duration_ms === undefined ? "—" : `${d.duration_ms} ms`), numeric: true },
            { label: "Response", cell: (d: Delivery) => h("code", { class: "response" }, d.response ?? "—") },
            { label: "Action", cell: redeliver },
          ],
          deliveries.body,
          pageOf(query),
          "No deliveries yet.",
        )
      : errorNotice(deliveries.error),
  );
}
