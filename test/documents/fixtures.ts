import { expect } from "vitest";
import type { BillingDocument } from "../../src/documents/pdf.ts";
import type { TestContext } from "../helpers/context.ts";

/** A paid one-line invoice in euros from a French seller to a German business; tests vary it. */
export const invoice: BillingDocument = {
  kind: "invoice",
  number: "ACME-AAAAAAAB-0042",
  issuedAt: new Date("2026-11-01T10:00:00Z"),
  suppliedAt: new Date("2026-11-01T10:00:00Z"),
  paidAt: new Date("2026-11-01T10:00:00Z"),
  currency: "eur",
  locale: null,
  seller: {
    name: "Acme Tools SAS",
    address: { line1: "1 rue de la Paix", line2: null, postal_code: "75002", city: "Paris", state: null, country: "FR" },
    taxIds: ["FR40303265045"],
    contact: ["support@acme.test", "https://acme.test"],
    logo: null,
  },
  buyer: {
    name: "Ada Lovelace GmbH",
    address: { line1: "Unter den Linden 1", line2: null, postal_code: "10117", city: "Berlin", state: null, country: "DE" },
    taxIds: ["DE136695976"],
    contact: [],
    isBusiness: true,
  },
  lines: [{ description: "Pro license", quantity: 1, unitAmount: 10_000, amount: 10_000, taxRateBasisPoints: 2_000, taxAmount: 1_600 }],
  subtotal: 10_000,
  discount: 2_000,
  taxes: [{ rateBasisPoints: 2_000, base: 8_000, amount: 1_600 }],
  total: 9_600,
  reverseCharge: null,
};

/** A 24 × 24 red PNG, as a seller's avatar carries it in a `data:` URL. */
export const LOGO_PNG_DATA_URL =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABgAAAAYCAIAAABvFaqvAAAAH0lEQVR42mM4IWdDFcQwatCoQaMGjRo0atCoQQNvEACKvoyflfvzkQAAAABJRU5ErkJggg==";

/** `POST /v1/organizations/` as the owner, with this avatar URL (which a document draws as the logo); its id. */
export async function createOrganizationWithAvatar(ctx: TestContext, avatarUrl: string): Promise<string> {
  const created = await ctx.request({
    method: "POST",
    url: "/v1/organizations/",
    token: ctx.ownerToken,
    payload: { name: "Logo Shop", slug: `logo-${Math.random().toString(36).slice(2, 8)}`, avatar_url: avatarUrl },
  });
  expect(created.statusCode, created.body).toBe(201);
  return created.json<{ id: string }>().id;
}
