/**
 * The import rules of docs/architecture.md, checked by `npm run deps` (part of `npm test`).
 * Type-only imports count (a cycle of types is still a tangle to read), with one exception:
 * `db/database.ts`, the Kysely schema, names every feature's table type, so it is left out of the
 * cruise rather than letting it tie `db` to every feature.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "features-never-import-flows",
      severity: "error",
      comment:
        "Flows compose features; a feature that called a flow would tie the layers in a loop. Routes, tasks, the portal, the portal page and the test clock drive flows.",
      from: {
        path: "^src/modules/",
        pathNot: ["\\.(routes|tasks)\\.ts$", "^src/modules/(customer-portal|portal-page|test-clock)/"],
      },
      to: { path: "^src/flows/" },
    },
    {
      name: "another-feature-only-through-its-steps",
      severity: "error",
      comment:
        "A feature reaches another through that feature's steps (operations inside the caller's transaction), schemas, table types, errors and mappers (an embedded resource's wire shape), never its repositories or services.",
      from: { path: "^src/modules/([^/]+)/" },
      to: {
        path: "^src/modules/",
        pathNot: ["^src/modules/$1/", "\\.(steps|schemas|table|errors|mapper)\\.ts$"],
        // A service's type, named to receive it by injection, couples nothing at run time.
        dependencyTypesNot: ["type-only"],
      },
    },
    {
      name: "flows-through-steps",
      severity: "error",
      comment:
        "A flow is built from the modules' steps (with their schemas, table types, errors and mappers), never their repositories or services.",
      from: { path: "^src/flows/" },
      to: { path: "^src/modules/", pathNot: "\\.(steps|schemas|table|errors|mapper)\\.ts$" },
    },
    {
      name: "opentelemetry-only-in-observability",
      severity: "error",
      comment:
        "The rest of the code traces through src/observability/spans.ts, so it reads the same with tracing on or off and the SDK can change in one place.",
      from: { path: "^src/", pathNot: "^src/observability/" },
      to: { path: "node_modules/@opentelemetry/" },
    },
    {
      name: "no-circular",
      severity: "error",
      comment: "No import cycle, between modules or between files of one module.",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "no-circular-between-folders",
      severity: "error",
      comment: "Modules (folders) depend on each other in one direction only.",
      scope: "folder",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "infrastructure-imports-no-feature",
      severity: "error",
      comment:
        "Infrastructure (http, schema, values, pages, db, jobs, contracts, documents) and the adapters serve the features and never call into one at run time.",
      from: { path: "^src/(http|schema|values|pages|db|jobs|contracts|documents|adapters|observability)/" },
      to: { path: "^src/modules/" },
    },
    {
      name: "only-the-entry-points-import-the-composition-root",
      severity: "error",
      comment: "Features and infrastructure receive their dependencies; only the entry points assemble them.",
      from: { path: "^src/(modules|http|schema|values|pages|db|jobs|contracts|documents|adapters|observability)/" },
      to: { path: "^src/(app|services|tasks|server|cli|seed|runtime)\\.ts$" },
    },
    {
      name: "no-orphans",
      severity: "error",
      comment: "Every source file is imported by something (no forgotten module).",
      from: { orphan: true, path: "^src/" },
      to: {},
    },
    {
      name: "reachable-from-an-entry-point",
      severity: "error",
      comment: "Every source file runs in the server or the CLI; code only tests reach is dead code.",
      from: { path: "^src/(server|cli)\\.ts$" },
      to: { path: "^src/", pathNot: "^src/(server|cli)\\.ts$", reachable: false },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: ["^(node_modules|test|bench|migrations)/", "^src/db/database\\.ts$"] },
  },
};
