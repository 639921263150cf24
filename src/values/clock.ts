import { AsyncLocalStorage } from "node:async_hooks";
import type { FastifyInstance } from "fastify";

/**
 * Organization clocks. In the sandbox an organization may move its own time forward (the test
 * clock); everything that reads "now" while serving that organization — a request of its token or
 * customer session, a renewal of its subscriptions — runs at its time. The offset travels with the
 * async context, so services keep calling `deps.now()` and never pass an organization around.
 */
const offsets = new AsyncLocalStorage<{ offsetMs: number }>();

/** `base` shifted by the offset of the organization being served (none outside any). */
export function organizationClock(base: () => Date): () => Date {
  return () => {
    const offsetMs = offsets.getStore()?.offsetMs ?? 0;
    return offsetMs === 0 ? base() : new Date(base().getTime() + offsetMs);
  };
}

/** Runs `work` at an organization's time. */
export function atClockOffset<T>(offsetMs: number, work: () => Promise<T>): Promise<T> {
  return offsets.run({ offsetMs }, work);
}

/** Each request gets its own clock context; the auth layer sets its organization's offset once known. */
export function registerRequestClock(app: FastifyInstance): void {
  app.addHook("onRequest", (_request, _reply, done) => {
    offsets.run({ offsetMs: 0 }, done);
  });
}

/** Sets the offset of the request being served (called once its principal is known). */
export function setRequestClockOffset(offsetMs: number): void {
  const store = offsets.getStore();
  if (store) store.offsetMs = offsetMs;
}

/** Real time, whatever organization is being served: `now` read outside any organization's clock. */
export function realTime(now: () => Date): Date {
  return offsets.run({ offsetMs: 0 }, now);
}
