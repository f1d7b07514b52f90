// Dependency rules: the rooms and directions of the README's code map.
// `npm run deps` checks them; `npm test` runs it.

/** Infrastructure the engine gets injected instead of importing. */
const INFRA = "^(generated/|node_modules/(@prisma/|prisma/|socket\\.io|next/|openai/))";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "No import cycles anywhere: a cycle makes the order of module set-up and the layering unclear.",
      from: {},
      to: { circular: true },
    },
    {
      name: "engine-no-infrastructure",
      severity: "error",
      comment:
        "The engine never imports Prisma, Socket.IO, Next or the openai SDK: it gets a clock, a model client, " +
        "stores and an event sink through its constructor.",
      from: { path: "^server/engine/" },
      to: { path: INFRA },
    },
    {
      name: "engine-no-concrete-rooms",
      severity: "error",
      comment:
        "The engine may import lib, server/tools and the interfaces of llm and stores: not the database, " +
        "transports, MCP, plugins or the composition root.",
      from: { path: "^server/engine/" },
      to: {
        path: "^server/",
        pathNot: "^server/(engine/|tools/|llm/|monitor/|stores/[^/]+\\.ts$)",
      },
    },
    {
      name: "engine-only-through-index",
      severity: "error",
      comment:
        "Other rooms use the engine only through its public surface, server/engine/index.ts " +
        "(tests and benchmarks may reach inside).",
      from: { path: "^(server|plugins|app|components|lib)/", pathNot: "^server/engine/" },
      to: { path: "^server/engine/", pathNot: "^server/engine/index\\.ts$" },
    },
    {
      name: "client-not-to-server",
      severity: "error",
      comment: "Client code (pages, components, lib/client) never imports server code, except `import type`.",
      from: { path: "^(app|components|lib/client)/" },
      to: { path: "^server/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "lib-is-shared",
      severity: "error",
      comment:
        "lib/ holds the wire schemas and pure helpers both sides use: it imports nothing of server/, app/, components/.",
      from: { path: "^lib/" },
      to: { path: "^(server|app|components)/" },
    },
    {
      name: "lib-schemas-not-client",
      severity: "error",
      comment: "The shared part of lib/ (schemas, pure helpers) does not depend on the browser-side lib/client.",
      from: { path: "^lib/", pathNot: "^lib/client/" },
      to: { path: "^lib/client/" },
    },
    {
      name: "tools-room",
      severity: "error",
      comment: "server/tools may import lib and the store interfaces only.",
      from: { path: "^server/tools/" },
      to: { path: "^server/", pathNot: "^server/(tools/|stores/[^/]+\\.ts$)" },
    },
    {
      name: "llm-room",
      severity: "error",
      comment: "server/llm may import lib (and the interfaces of the stores it writes: usage, model calls) only.",
      from: { path: "^server/llm/" },
      to: { path: "^server/", pathNot: "^server/(llm/|stores/(usage|model-calls)\\.ts$)" },
    },
    {
      name: "mcp-room",
      severity: "error",
      comment: "server/mcp may import lib, server/tools and the engine's surface: not the database, plugins or models.",
      from: { path: "^server/mcp/" },
      to: { path: "^server/(db|plugins|llm|realtime|cli)/" },
    },
    {
      name: "plugins-room",
      severity: "error",
      comment: "server/plugins may import lib, server/tools and the engine's surface: not the database, MCP or models.",
      from: { path: "^server/plugins/" },
      to: { path: "^server/(db|mcp|llm|realtime|http|cli)/" },
    },
    {
      name: "platforms-room",
      severity: "error",
      comment:
        "server/platforms (chat platform adapters) may import lib, the engine's surface and the store interfaces: " +
        "not the database, tools, MCP, plugins, models or transports of other rooms.",
      from: { path: "^server/platforms/" },
      to: { path: "^server/(db|tools|mcp|plugins|llm|realtime|http|cli)/" },
    },
    {
      name: "db-room",
      severity: "error",
      comment:
        "server/db implements the store and ledger interfaces: it uses no engine, tool, transport or model code.",
      from: { path: "^server/db/" },
      to: { path: "^server/(engine|tools|llm|mcp|plugins|http|realtime|cli)/" },
    },
    {
      name: "realtime-room",
      severity: "error",
      comment: "server/realtime may import lib, server/db and the monitor: not tools, MCP, plugins or models.",
      from: { path: "^server/realtime/" },
      to: { path: "^server/(tools|mcp|plugins|llm|cli)/" },
    },
    {
      name: "cli-is-an-entry",
      severity: "error",
      comment: "server/cli is a program: nothing in the app imports it.",
      from: { path: "^(server|app|components|lib|plugins)/", pathNot: "^server/cli/" },
      to: { path: "^server/cli/" },
    },
    {
      name: "prisma-only-in-db",
      severity: "error",
      comment: "Prisma and its generated client belong to server/db (the composition root wires it in).",
      from: { path: "^(server|app|components|lib|plugins)/", pathNot: "^server/db/" },
      to: { path: "^(generated/|node_modules/(@prisma/|prisma/))" },
    },
    {
      name: "plugins-use-the-sdk",
      severity: "error",
      comment: "Plugins in plugins/ see the host only through the plugin SDK and lib/.",
      from: { path: "^plugins/" },
      to: { path: "^(server|app|components)/", pathNot: "^server/plugins/sdk/" },
    },
    {
      name: "no-dev-deps-in-production",
      severity: "error",
      comment: "Code that ships (server, pages, components, lib, plugins) does not import devDependencies.",
      from: { path: "^(server|app|components|lib|plugins)/" },
      to: { dependencyTypes: ["npm-dev"], dependencyTypesNot: ["type-only"] },
    },
    {
      name: "no-undeclared-packages",
      severity: "error",
      comment: "Every imported package is declared in package.json.",
      from: {},
      to: { dependencyTypes: ["npm-no-pkg", "npm-unknown"] },
    },
    {
      name: "not-to-unresolvable",
      severity: "error",
      comment: "Every import resolves to a file or package.",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: ["node_modules", "^generated/"] },
    exclude: { path: ["^\\.next/", "^data/", "^test-results/"] },
    // Type-only imports are dependencies too (the client rule allows them explicitly).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types", "typings"],
      extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs", ".json", ".d.ts"],
    },
    skipAnalysisNotInRules: true,
  },
};
