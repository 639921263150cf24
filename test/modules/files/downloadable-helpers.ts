import { expect } from "vitest";
import type { TestContext } from "../../helpers/context.ts";

/** `POST /v1/benefits/` of a downloadables benefit of these files (the response, for its status and id). */
export const createDownloadables = (
  ctx: TestContext,
  token: string,
  files: string[],
  options: { description?: string; archived?: Record<string, boolean> } = {},
) =>
  ctx.request({
    method: "POST",
    url: "/v1/benefits/",
    token,
    payload: {
      type: "downloadables",
      description: options.description ?? "Installer",
      properties: { files, archived: options.archived ?? {} },
    },
  });

/** A one-time product (through the API) granting a new downloadables benefit of these files; its id and the benefit's. */
export async function productWithFiles(
  ctx: TestContext,
  token: string,
  fileIds: string[],
  description?: string,
): Promise<{ productId: string; benefitId: string }> {
  const benefit = await createDownloadables(ctx, token, fileIds, description ? { description } : {});
  expect(benefit.statusCode, benefit.body).toBe(201);
  const product = await ctx.request({
    method: "POST",
    url: "/v1/products/",
    token,
    payload: { name: "Desktop app", prices: [{ amount_type: "fixed", price_amount: 2_500 }] },
  });
  expect(product.statusCode, product.body).toBe(201);
  const productId = product.json<{ id: string }>().id;
  const benefitId = benefit.json<{ id: string }>().id;
  const attached = await ctx.request({
    method: "POST",
    url: `/v1/products/${productId}/benefits`,
    token,
    payload: { benefits: [benefitId] },
  });
  expect(attached.statusCode, attached.body).toBe(200);
  return { productId, benefitId };
}
