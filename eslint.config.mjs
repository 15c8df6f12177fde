// eslint over the site's own scripts (static/js): `make lint` runs it, and `make test` with it.
// They are classic browser scripts (each an IIFE in strict mode, loaded by a <script> tag after
// htmx), so they see the browser's globals and htmx's, and no module system.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["node_modules/", "staticfiles/", "bench/", "test-results/"] },
  {
    files: ["static/js/**/*.js"],
    ...js.configs.recommended,
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "script",
      globals: { ...globals.browser, htmx: "readonly" },
    },
    rules: {
      ...js.configs.recommended.rules,
      // A name is read where it is declared or below: a script reads from the top down.
      "no-use-before-define": ["error", { functions: true, classes: true, variables: true }],
      "no-unused-vars": ["error", { args: "after-used" }],
      "no-shadow": "error",
      "no-implicit-globals": "error",
      eqeqeq: "error",
      strict: ["error", "function"],
    },
  },
];
