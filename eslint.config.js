// ESLint flat config: typescript-eslint's type-aware rules over everything TypeScript in the repo.
// Formatting is Prettier's job (`npm run lint` checks both), so no stylistic rules here.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", ".data/", "test-results/", "coverage/"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-explicit-any": "error",
      // Fastify plugins and hooks, and adapters behind promise-returning interfaces (sandbox
      // processor, local blob store), are async by contract even where they have nothing to await.
      "@typescript-eslint/require-await": "off",
      // Destructuring away a field (`const { secret: _secret, ...rest } = row`) is how a field is dropped.
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", ignoreRestSiblings: true }],
    },
  },
  {
    // SQL lives in repositories (docs/architecture.md, "The layers"): a query builder's entry point
    // or the `sql` tag anywhere else under src/ fails lint. src/db/ is the database layer itself.
    files: ["src/**/*.ts"],
    ignores: ["src/**/*.repository.ts", "src/db/**"],
    rules: {
      "no-restricted-syntax": [
        "error",
        ...["selectFrom", "insertInto", "updateTable", "deleteFrom"].map((method) => ({
          selector: `CallExpression[callee.property.name="${method}"]`,
          message: `${method}: SQL lives in *.repository.ts files (docs/architecture.md).`,
        })),
        {
          selector: 'TaggedTemplateExpression[tag.name="sql"]',
          message: "sql`…`: SQL lives in *.repository.ts files (docs/architecture.md).",
        },
        { selector: 'MemberExpression[object.name="sql"]', message: "sql.*: SQL lives in *.repository.ts files (docs/architecture.md)." },
      ],
    },
  },
  {
    // Tests read response bodies through light-my-request's `json()`, typed `any` by the library,
    // and check them with `expect`; the `no-unsafe-*` family would flag every such read.
    files: ["test/**/*.ts"],
    rules: {
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-return": "off",
    },
  },
  { files: ["**/*.js", "**/*.cjs", "**/*.mjs"], ...tseslint.configs.disableTypeChecked },
  { files: ["**/*.cjs"], languageOptions: { sourceType: "commonjs", globals: { module: "writable" } } },
  { files: ["bin/**/*.js"], languageOptions: { globals: { process: "readonly" } } },
  // The README's verification examples: standalone Node scripts.
  { files: ["examples/**/*.mjs"], languageOptions: { globals: { process: "readonly", Buffer: "readonly", console: "readonly" } } },
);
