import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_LOGO_BYTES, logoImage } from "../../src/documents/logo.ts";
import { renderBillingPdf } from "../../src/documents/pdf.ts";
import { orderBillingDocument } from "../../src/modules/orders/order-documents.render.ts";
import { findOrderEmbedded } from "../../src/modules/orders/orders.repository.ts";
import { createTestContext, type TestContext } from "../helpers/context.ts";
import { createOrder } from "../helpers/factories.ts";
import { POPPLER_MISSING, popplerAvailable, writePagePngs } from "../helpers/pdf.ts";
import { LOGO_PNG_DATA_URL, createOrganizationWithAvatar, invoice } from "./fixtures.ts";

const PNG_BYTES = Buffer.from(LOGO_PNG_DATA_URL.split(",")[1]!, "base64");

describe("the seller's logo from its avatar URL", () => {
  it("takes a data: URL of a PNG or JPEG whose bytes are one, and nothing else", () => {
    expect(logoImage(LOGO_PNG_DATA_URL)).toEqual(PNG_BYTES);
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16]);
    expect(logoImage(`data:image/jpeg;base64,${jpeg.toString("base64")}`)).toEqual(jpeg);
    // Remote images are never fetched.
    expect(logoImage("https://acme.test/logo.png")).toBeNull();
    expect(logoImage(null)).toBeNull();
    // The declared type must match the bytes; other types and encodings are not drawn.
    expect(logoImage(LOGO_PNG_DATA_URL.replace("image/png", "image/jpeg"))).toBeNull();
    expect(logoImage(LOGO_PNG_DATA_URL.replace("image/png", "image/svg+xml"))).toBeNull();
    expect(logoImage("data:image/png,%89PNG")).toBeNull();
    expect(logoImage("data:image/png;base64,")).toBeNull();
    const huge = Buffer.concat([PNG_BYTES, Buffer.alloc(MAX_LOGO_BYTES)]);
    expect(logoImage(`data:image/png;base64,${huge.toString("base64")}`)).toBeNull();
  });

  it("draws the logo in the top right corner, and a document without one has no image", async () => {
    const withLogo = await renderBillingPdf({ ...invoice, seller: { ...invoice.seller, logo: PNG_BYTES } });
    const without = await renderBillingPdf(invoice);
    expect(withLogo.includes("/Subtype /Image")).toBe(true);
    expect(without.includes("/Subtype /Image")).toBe(false);
    if (!popplerAvailable) {
      console.warn(POPPLER_MISSING);
      return;
    }
    writePagePngs(withLogo, "invoice-with-logo");
    // One pixel a point: the 48-point logo box ends at the right margin (545) and starts at the top one (50).
    const pixel = (pdf: Buffer, x: number, y: number) => {
      const dir = mkdtempSync(path.join(os.tmpdir(), "logo-"));
      try {
        const file = path.join(dir, "page.pdf");
        writeFileSync(file, pdf);
        expect(spawnSync("pdftoppm", ["-r", "72", "-singlefile", file, path.join(dir, "page")]).status).toBe(0);
        const ppm = readFileSync(path.join(dir, "page.ppm"));
        const header = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(ppm.subarray(0, 32).toString("latin1"));
        const width = Number(header![1]);
        const offset = header![0].length + (y * width + x) * 3;
        return [...ppm.subarray(offset, offset + 3)];
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    };
    expect(pixel(withLogo, 520, 70)).toEqual([200, 30, 60]);
    expect(pixel(without, 520, 70)).toEqual([255, 255, 255]);
  });

  describe("on an order's documents", () => {
    let ctx: TestContext;
    beforeAll(async () => {
      ctx = await createTestContext();
    });
    afterAll(() => ctx.close());

    const documentOf = async (avatarUrl: string) => {
      const order = await createOrder(ctx.deps, await createOrganizationWithAvatar(ctx, avatarUrl));
      const row = await findOrderEmbedded(ctx.deps.db, order.id, { allowed: null });
      return orderBillingDocument(ctx.deps.db, row!, "invoice");
    };

    it("draws the organization's avatar where it is a data: URL, and fetches nothing otherwise", async () => {
      expect((await documentOf(LOGO_PNG_DATA_URL)).seller.logo).toEqual(PNG_BYTES);
      expect((await documentOf("https://acme.test/logo.png")).seller.logo).toBeNull();
    });
  });
});
