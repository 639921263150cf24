import type { FastifyInstance } from "fastify";
import { expect } from "vitest";

/** `GET /metrics` of an app serving it behind `token`: the text Prometheus would read. */
export async function scrapeMetrics(app: FastifyInstance, token: string): Promise<string> {
  const response = await app.inject({ method: "GET", url: "/metrics", headers: { authorization: `Bearer ${token}` } });
  expect(response.statusCode).toBe(200);
  expect(response.headers["content-type"]).toContain("text/plain");
  return response.body;
}

/** The value of one series, by its name and exact label set as Prometheus prints it. */
export const valueOf = (text: string, series: string): number | undefined => {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

/** How many series the text holds (its sample lines). */
export const seriesCount = (text: string) => text.split("\n").filter((line) => line !== "" && !line.startsWith("#")).length;

/** The metric names the text declares (`# TYPE <name> <type>`). */
export const declaredMetricNames = (text: string): Set<string> =>
  new Set([...text.matchAll(/^# TYPE (\S+) \S+$/gm)].map((match) => match[1]!));
