// Dependency rules: the room table of .dependency-rooms.mjs (one row per room: what it may import,
// everything else denied; README, "Architecture") turned into one rule per room, plus the rules every
// room keeps (no cycles, the engine's surface and infrastructure, client and server apart, Prisma in
// the database room). `npm run deps` checks them; `npm test` runs it.
import { ROOMS, ROOTS, roomPath } from "./.dependency-rooms.mjs";

/** Infrastructure the engine gets injected instead of importing. */
const INFRA = "^(generated/|node_modules/(@prisma/|prisma/|socket\\.io|next/|openai/))";

/** Any file of ours that belongs to a room. */
const OURS = `^(${ROOTS.join("|")})/`;

/** One rule per room: an import into a room not on its row is an error. */
function roomRules() {
  return Object.entries(ROOMS).map(([room, may]) => ({
    name: `room-${room.replaceAll("/", "-")}`,
    severity: "error",
    comment: `${room} may import: ${may.length > 0 ? may.join(", ") : "nothing of ours"} (.dependency-rooms.mjs).`,
    from: { path: roomPath(room) },
    to: { path: OURS, pathNot: [room, ...may].map(roomPath) },
  }));
}

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    ...roomRules(),
    {
      name: "room-has-a-row",
      severity: "error",
      comment:
        "Every file under server/, lib/, components/, app/ and plugins/ belongs to a room of .dependency-rooms.mjs: " +
        "a new room gets its row (what it may import) with its first file.",
      from: { path: OURS, pathNot: Object.keys(ROOMS).map(roomPath) },
      to: { path: OURS },
    },
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
      name: "store-interfaces-only",
      severity: "error",
      comment:
        "The engine, the tools and the model clients see the stores' interfaces (server/stores/<aggregate>.ts), " +
        "never an implementation: the composition hands them one.",
      from: { path: "^server/(engine|tools|llm)/" },
      to: { path: "^server/stores/", pathNot: "^server/stores/[^/]+\\.ts$" },
    },
    {
      name: "llm-writes-usage-and-calls-only",
      severity: "error",
      comment:
        "The model clients write usage and model calls: those two store interfaces are all they import of the stores.",
      from: { path: "^server/llm/" },
      to: { path: "^server/stores/", pathNot: "^server/stores/(usage|model-calls)\\.ts$" },
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
