#!/usr/bin/env node
// `npx commerce-api …` needs no build step: a Node that strips types itself (22.18 and later) runs the
// TypeScript CLI as it is; older ones (Node 20) load it through tsx.
if (!process.features.typescript) {
  const { register } = await import("tsx/esm/api");
  register();
}
await import("../src/cli.ts");
