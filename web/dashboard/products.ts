// Products: the list (active or archived), creating one with its price and custom fields, editing
// its name, description, price, custom fields and benefits (both searched for, however many there
// are), and archiving it. All through /v1/products/, /v1/benefits/ and /v1/custom-fields/.
import { currentOrganizationId, get, list, request } from "./api.ts";
import { field, formOf, minorUnits, onSubmit, selectField, textField, type Field, type FormParts } from "./forms.ts";
import { customFieldForm } from "./custom-field-form.ts";
import { customFieldPicker, type AttachedCustomField } from "./product-custom-fields.ts";
import { pagedTable, pageOf, pageQuery } from "./pager.ts";
import { picker } from "./picker.ts";
import type { PageContext } from "./router.ts";
import { guard, holds, requireScopeForForm } from "./scopes.ts";
import { button, errorNotice, fill, h, link, loading, minorPerMajor, money, notice, pageHeading } from "./ui.ts";

interface Price {
  id: string;
  amount_type: string;
  price_amount?: number;
  price_currency: string;
  is_archived: boolean;
}
export interface Product {
  id: string;
  name: string;
  description: string | null;
  is_recurring: boolean;
  recurring_interval: string | null;
  is_archived: boolean;
  prices: Price[];
  benefits: { id: string; description: string }[];
  attached_custom_fields: AttachedCustomField[];
}

export function priceText(product: Product): string {
  const price = product.prices.find((p) => !p.is_archived);
  if (!price) return "—";
  const amount =
    price.amount_type === "fixed"
      ? money(price.price_amount ?? 0, price.price_currency)
      : price.amount_type === "free"
        ? "Free"
        : "Pay what you want";
  return product.recurring_interval ? `${amount} / ${product.recurring_interval}` : amount;
}

export async function productsPage({ main, query, data, navigate }: PageContext): Promise<void> {
  const archived = query.get("archived") === "true";
  const create = link("/dashboard/products/new", "New product");
  create.className = "button";
  const filter = selectField(
    "Show",
    "archived",
    [
      ["false", "Active products"],
      ["true", "Archived products"],
    ],
    String(archived),
  );
  filter.control.addEventListener("change", () => navigate(`/dashboard/products?archived=${filter.control.value}`));
  const results = h("div", { "aria-live": "polite" }, loading());
  fill(
    main,
    pageHeading("Products"),
    h("div", { class: "toolbar" }, filter.wrapper, holds(data, "products:write") ? create : null),
    results,
  );
  const answer = await list<Product>("products/", { is_archived: archived, ...pageQuery(query), sorting: "-created_at" });
  if (!answer.ok) return fill(results, errorNotice(answer.error));
  fill(
    results,
    pagedTable(
      archived ? "Archived products" : "Products",
      [
        { label: "Name", cell: (p: Product) => link(`/dashboard/products/${p.id}`, p.name) },
        { label: "Price", cell: priceText },
        { label: "Billing", cell: (p: Product) => (p.is_recurring ? "Subscription" : "One-time") },
        { label: "Benefits", cell: (p: Product) => String(p.benefits.length), numeric: true },
      ],
      answer.body,
      pageOf(query),
      archived ? "No archived products." : "No products yet. Create one to sell it.",
    ),
  );
}

/** The price fields of the form, read back as the API's price object. */
function priceFields(currency: string, current: Price | undefined) {
  const type = selectField(
    "Price type",
    "amount_type",
    [
      ["fixed", "Fixed price"],
      ["free", "Free"],
      ["custom", "Pay what you want"],
    ],
    current?.amount_type ?? "fixed",
  );
  const perMajor = minorPerMajor(currency);
  const amount = textField(
    `Amount (${currency.toUpperCase()})`,
    "price_amount",
    current?.price_amount !== undefined ? String(current.price_amount / perMajor) : "",
    { inputmode: "decimal" },
  );
  const sync = () => amount.show(type.control.value === "fixed", true);
  type.control.addEventListener("change", sync);
  sync();
  const read = (): Record<string, unknown> | null => {
    if (type.control.value !== "fixed") return { amount_type: type.control.value, price_currency: currency };
    const minor = minorUnits(amount.control.value, perMajor);
    return minor === null ? null : { amount_type: "fixed", price_amount: minor, price_currency: currency };
  };
  return { type, amount, read };
}

/** The price the form describes, or null after saying in the form how to write the amount. */
function readPriceOrSay(price: ReturnType<typeof priceFields>, parts: FormParts) {
  const body = price.read();
  if (!body) parts.messages.replaceChildren(notice("error", "Enter the amount as a number, like 12.50."));
  return body;
}

export async function newProductPage({ main, data, navigate }: PageContext): Promise<void> {
  const currency = data.organization.currency;
  const name = textField("Name", "name", "", { required: true, maxlength: "512" });
  const description = field("Description", h("textarea", { name: "description", rows: "3" }));
  const billing = selectField(
    "Billing",
    "recurring_interval",
    [
      ["", "One-time purchase"],
      ["month", "Monthly subscription"],
      ["year", "Yearly subscription"],
    ],
    "",
  );
  const price = priceFields(currency, undefined);
  const customFields = customFieldPicker(data, []);
  const parts = formOf(
    "New product",
    "Create product",
    name.wrapper,
    description.wrapper,
    billing.wrapper,
    price.type.wrapper,
    price.amount.wrapper,
    customFields.element,
  );
  const fields: Record<string, Field> = { name, description, recurring_interval: billing, price_amount: price.amount };
  requireScopeForForm(data, "products:write", parts);
  onSubmit(
    parts,
    fields,
    () => {
      const priceBody = readPriceOrSay(price, parts);
      if (!priceBody) return null;
      return request<Product>("POST", "products/", {
        organization_id: currentOrganizationId(),
        name: name.control.value,
        description: description.control.value || null,
        recurring_interval: billing.control.value || null,
        prices: [priceBody],
        attached_custom_fields: customFields.read(),
      });
    },
    (product) => navigate(`/dashboard/products/${product.id}?created=1`),
  );
  fill(main, pageHeading("New product"), parts.form, customFieldForm(data, customFields.add));
}

export async function productPage({ main, params, query, data, navigate }: PageContext): Promise<void> {
  fill(main, loading());
  const answer = await get<Product>(`products/${params.id}`);
  if (!answer.ok) return fill(main, pageHeading("Product"), errorNotice(answer.error));
  const product = answer.body;
  const customFields = customFieldPicker(data, product.attached_custom_fields);
  const customFieldParts = formOf("Custom fields", "Save custom fields", customFields.element);
  requireScopeForForm(data, "products:write", customFieldParts);
  onSubmit(
    customFieldParts,
    {},
    () => request<Product>("PATCH", `products/${product.id}`, { attached_custom_fields: customFields.read() }),
    () => "The custom fields are saved.",
  );
  const currency = product.prices[0]?.price_currency ?? data.organization.currency;
  const current = product.prices.find((p) => !p.is_archived);
  const name = textField("Name", "name", product.name, { required: true, maxlength: "512" });
  const description = field("Description", h("textarea", { name: "description", rows: "3" }, product.description ?? ""));
  const price = priceFields(currency, current);
  const parts = formOf("Edit product", "Save changes", name.wrapper, description.wrapper, price.type.wrapper, price.amount.wrapper);
  const fields: Record<string, Field> = { name, description, price_amount: price.amount };
  requireScopeForForm(data, "products:write", parts);
  onSubmit(
    parts,
    fields,
    () => {
      const priceBody = readPriceOrSay(price, parts);
      if (!priceBody) return null;
      const unchanged =
        current && current.amount_type === priceBody.amount_type && (current.price_amount ?? null) === (priceBody.price_amount ?? null);
      return request<Product>("PATCH", `products/${product.id}`, {
        name: name.control.value,
        description: description.control.value || null,
        prices: [unchanged ? { id: current.id } : priceBody],
      });
    },
    () => "The product is saved.",
  );

  const benefits = picker<{ id: string; description: string }>({
    label: "Grant a benefit",
    hint: "Search by description. Buyers of the product are granted the benefits below.",
    path: "benefits/",
    filters: { sorting: "description" },
    noun: ["benefit", "benefits"],
    text: (b) => b.description,
    multiple: true,
    chosen: product.benefits,
  });
  const benefitParts = formOf("Benefits", "Save benefits", benefits.field.wrapper);
  requireScopeForForm(data, "products:write", benefitParts);
  onSubmit(
    benefitParts,
    {},
    () => request("POST", `products/${product.id}/benefits`, { benefits: benefits.chosen().map((b) => b.id) }),
    () => "The benefits are saved.",
  );

  const archive = button(product.is_archived ? "Unarchive product" : "Archive product", {
    class: product.is_archived ? "button" : "button button-danger",
  });
  const archiveReason = guard(data, archive, "products:write");
  const archiveMessages = h("div", { "aria-live": "polite" });
  archive.addEventListener("click", () => {
    archive.disabled = true;
    void request("PATCH", `products/${product.id}`, { is_archived: !product.is_archived }).then((result) => {
      if (result.ok) navigate(`/dashboard/products/${product.id}`);
      else {
        archive.disabled = false;
        archiveMessages.replaceChildren(errorNotice(result.error));
      }
    });
  });
  fill(
    main,
    pageHeading(product.name),
    h("p", {}, link("/dashboard/products", "All products")),
    query.get("created") ? notice("success", "The product is created.") : null,
    h("p", {}, `${product.is_archived ? "Archived · " : ""}${priceText(product)}`),
    h("h2", {}, "Details"),
    parts.form,
    h("h2", {}, "Custom fields"),
    customFieldParts.form,
    customFieldForm(data, customFields.add),
    h("h2", {}, "Benefits"),
    benefitParts.form,
    h("h2", {}, "Archive"),
    h(
      "div",
      { class: "card" },
      archiveMessages,
      h(
        "p",
        {},
        product.is_archived ? "Archived products cannot be bought." : "Archiving stops new sales; existing orders and subscriptions stay.",
      ),
      archive,
      archiveReason ? h("p", { class: "hint" }, archiveReason) : null,
    ),
  );
}
