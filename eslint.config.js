// ESLint: typescript-eslint's type-aware recommended rules on every TypeScript file, React hook rules on
// the client, and a reason required for every disable comment (the project rule "no `any` without a
// reason on the same line" is met with `// eslint-disable-next-line @typescript-eslint/no-explicit-any -- why`).
import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import comments from "@eslint-community/eslint-plugin-eslint-comments/configs";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

export default defineConfig(
  {
    ignores: [
      "generated/**",
      ".next/**",
      "node_modules/**",
      "data/**",
      "test-results/**",
      "playwright-report/**",
      "next-env.d.ts",
    ],
  },
  { linterOptions: { reportUnusedDisableDirectives: "error" } },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  comments.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    rules: {
      "@eslint-community/eslint-comments/require-description": "error",
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      // Async implementations of Promise-returning interfaces (memory stores, providers) need no await:
      // `async` keeps a throw a rejection.
      "@typescript-eslint/require-await": "off",
      // Passing on a caught error or an AbortSignal's reason as it came is right; literals are still caught.
      "@typescript-eslint/prefer-promise-reject-errors": [
        "error",
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],
    },
  },
  {
    files: ["components/**/*.{ts,tsx}", "lib/client/react/**/*.{ts,tsx}", "app/**/*.tsx"],
    ...reactHooks.configs.flat.recommended,
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      ...reactHooks.configs.flat.recommended.rules,
      "react-hooks/exhaustive-deps": "error",
      // The project does not compile with the React Compiler: these only say what it could not optimise,
      // or flag idioms that are sound without it (the latest-value ref written during render, and a
      // browser-only value read into state after mount so server and client render the same markup).
      "react-hooks/refs": "off",
      "react-hooks/set-state-in-effect": "off",
      "react-hooks/preserve-manual-memoization": "off",
      "react-hooks/incompatible-library": "off",
    },
  },
  {
    // Vitest's asymmetric matchers (expect.any, expect.stringMatching, ...) are typed `any`.
    files: ["tests/**/*.ts", "e2e/**/*.ts"],
    rules: { "@typescript-eslint/no-unsafe-assignment": "off" },
  },
  {
    // Plain JavaScript (configs, the summary script): no type information to lint with.
    files: ["**/*.{js,mjs,cjs}"],
    ...tseslint.configs.disableTypeChecked,
  },
);
