// Checkout links: the list with each link's address to copy, and a form creating one for a product
// (GET and POST /v1/checkout-links/; the product is searched for among the active ones of GET /v1/products/).
import { list, request } from "./api.ts";
import { pagedTable, pageOf, pageQuery } from "./pager.ts";
import type { PageContext } from "./router.ts";
import { field, formCard, input, onSubmit } from "./forms.ts";
import { picker } from "./picker.ts";
import { copyable } from "./copyable.ts";
import { requireScopeForForm } from "./scopes.ts";
import { date, errorNotice, fill, h, loading, notice, pageHeading } from "./ui.ts";

interface CheckoutLink {
  id: string;
  label: string | null;
  url: string;
  allow_discount_codes: boolean;
  created_at: string;
  products: { id: string; name: string }[];
}

function createForm(context: PageContext, refresh: () => void): HTMLElement {
  const product = picker<{ id: string; name: string }>({
    label: "Product",
    hint: "Search by name; the link sells the product chosen.",
    path: "products/",
    filters: { is_archived: false, sorting: "name" },
    noun: ["product", "products"],
    text: (p) => p.name,
    multiple: false,
  });
  const fields = {
    product_id: product.field,
    label: field("Label", input({ type: "text", name: "label", maxlength: "256" }), "For you only: tells your links apart."),
    allow_discount_codes: field("Allow discount codes", input({ type: "checkbox", name: "allow_discount_codes", checked: true })),
  };
  const parts = formCard("New checkout link", "Create link", ...Object.values(fields).map((f) => f.wrapper));
  requireScopeForForm(context.data, "checkout_links:write", parts);
  onSubmit(
    parts,
    { product_id: fields.product_id, label: fields.label },
    () => {
      const [chosen] = product.chosen();
      if (!chosen) {
        parts.messages.replaceChildren(notice("error", "Choose the product the link sells: search for it by name."));
        return null;
      }
      return request<CheckoutLink>("POST", "checkout-links/", {
        payment_processor: "stripe",
        product_id: chosen.id,
        label: fields.label.control.value.trim() || null,
        allow_discount_codes: (fields.allow_discount_codes.control as HTMLInputElement).checked,
      });
    },
    (link) => {
      refresh();
      return h("div", {}, notice("success", "Link created. Copy it and share it."), copyable("New checkout link", link.url));
    },
  );
  return parts.form;
}

export async function checkoutLinksPage(context: PageContext): Promise<void> {
  const results = h("div", { "aria-live": "polite" }, loading());
  const formSlot = h("div", {});
  fill(context.main, pageHeading("Checkout links"), formSlot, results);
  const load = async () => {
    const answer = await list<CheckoutLink>("checkout-links/", { ...pageQuery(context.query), sorting: "-created_at" });
    if (!answer.ok) return fill(results, errorNotice(answer.error));
    fill(
      results,
      pagedTable(
        "Checkout links",
        [
          { label: "Label", cell: (l: CheckoutLink) => l.label ?? "—" },
          { label: "Products", cell: (l) => l.products.map((p) => p.name).join(", ") },
          { label: "Link", cell: (l) => copyable(`Link ${l.label ?? l.id}`, l.url) },
          { label: "Created", cell: (l) => date(l.created_at) },
        ],
        answer.body,
        pageOf(context.query),
        "No checkout links yet.",
      ),
    );
  };
  fill(
    formSlot,
    createForm(context, () => void load()),
  );
  await load();
}
