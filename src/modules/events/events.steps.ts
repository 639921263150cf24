// The event reads other modules run inside their own statements.

export { earliestUserEventAt } from "./events.repository.ts";
