/**
 * Rendering cost of scripts: 1,000 invoices whose names, addresses and products mix Latin,
 * Cyrillic and Japanese against 1,000 Latin-only ones, in one process, alternated (Latin, mixed,
 * mixed, Latin) so that a machine's drift weighs on both. Target: mixed ≤ 2× Latin; and the
 * size of a one-line invoice (< 100 KB).
 *
 *   node --import tsx bench/invoice-scripts.ts   (BENCH_INVOICES, default 1000)
 */
import os from "node:os";
import { performance } from "node:perf_hooks";
import { renderBillingPdf, type BillingDocument } from "../src/documents/pdf.ts";

const COUNT = Math.min(Number(process.env.BENCH_INVOICES ?? 1000), 10_000);

const LATIN = { seller: "Acme Tools SAS", buyer: "Ada Lovelace", street: "Analytical Row", city: "Paris", product: "Pro license — yearly" };
const MIXED = {
  seller: "東京ソフト株式会社",
  buyer: "Дмитрий Иванов",
  street: "ул. Тверская",
  city: "東京都千代田区",
  product: "Лицензия Pro — 年間",
};

/** The n-th invoice: strings differ from one invoice to the next, as real ones do. */
function invoice(strings: typeof LATIN, n: number): BillingDocument {
  const date = new Date(Date.UTC(2026, 10, 1) + n * 60_000);
  return {
    kind: "invoice",
    number: `BENCH-${String(n).padStart(6, "0")}`,
    issuedAt: date,
    suppliedAt: date,
    paidAt: date,
    currency: "eur",
    locale: null,
    seller: {
      name: strings.seller,
      address: { line1: `${strings.street} ${n}`, line2: null, postal_code: "75002", city: strings.city, state: null, country: "FR" },
      taxIds: ["FR40303265045"],
      contact: ["support@acme.test"],
      logo: null,
    },
    buyer: {
      name: `${strings.buyer} ${n}`,
      address: { line1: `${strings.street} ${n % 97}`, line2: null, postal_code: "10117", city: strings.city, state: null, country: "DE" },
      taxIds: [],
      contact: [],
      isBusiness: false,
    },
    lines: [
      {
        description: `${strings.product} #${n}`,
        quantity: 1,
        unitAmount: 10_000,
        amount: 10_000,
        taxRateBasisPoints: 2_000,
        taxAmount: 2_000,
      },
    ],
    subtotal: 10_000,
    discount: 0,
    taxes: [{ rateBasisPoints: 2_000, base: 10_000, amount: 2_000 }],
    total: 12_000,
    reverseCharge: null,
  };
}

async function renderAll(strings: typeof LATIN, count: number, offset: number): Promise<{ ms: number; bytes: number }> {
  const start = performance.now();
  let bytes = 0;
  for (let n = 0; n < count; n += 1) bytes += (await renderBillingPdf(invoice(strings, offset + n))).length;
  return { ms: performance.now() - start, bytes };
}

// Warm-up: the faces are read and parsed once per process, as in the server.
await renderAll(LATIN, 20, 1_000_000);
await renderAll(MIXED, 20, 1_000_000);

const half = Math.floor(COUNT / 2);
const latin = [await renderAll(LATIN, half, 0)];
const mixed = [await renderAll(MIXED, half, 0), await renderAll(MIXED, COUNT - half, half)];
latin.push(await renderAll(LATIN, COUNT - half, half));
const total = (runs: { ms: number; bytes: number }[]) =>
  runs.reduce((sum, run) => ({ ms: sum.ms + run.ms, bytes: sum.bytes + run.bytes }), { ms: 0, bytes: 0 });
const [l, m] = [total(latin), total(mixed)];
const oneLatin = (await renderBillingPdf(invoice(LATIN, 1))).length;
const oneMixed = (await renderBillingPdf(invoice(MIXED, 1))).length;

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
console.log(`machine: ${os.cpus()[0]?.model ?? "?"} × ${os.cpus().length}, Node ${process.version}, load ${os.loadavg()[0]?.toFixed(2)}`);
console.log(
  `${COUNT} Latin-only invoices: ${(l.ms / 1000).toFixed(2)} s (${(l.ms / COUNT).toFixed(1)} ms each), mean ${kb(l.bytes / COUNT)}`,
);
console.log(
  `${COUNT} Latin+Cyrillic+Japanese invoices: ${(m.ms / 1000).toFixed(2)} s (${(m.ms / COUNT).toFixed(1)} ms each), mean ${kb(m.bytes / COUNT)}`,
);
console.log(`ratio mixed / Latin: ${(m.ms / l.ms).toFixed(2)} (target ≤ 2.00) ${m.ms <= 2 * l.ms ? "PASS" : "FAIL"}`);
console.log(
  `one-line invoice: Latin ${kb(oneLatin)}, mixed ${kb(oneMixed)} (target < 100 KB) ${Math.max(oneLatin, oneMixed) < 100 * 1024 ? "PASS" : "FAIL"}`,
);
