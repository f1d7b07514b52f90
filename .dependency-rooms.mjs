// The rooms of the code and what each may import: one row per room, everything else denied.
// .dependency-cruiser.mjs turns the rows into rules (`npm run deps`); tests/architecture/rooms.test.ts
// fails when a folder under server/, lib/ or components/ has no row, or when two rows allow each other.
//
// Granularity: every folder and every top-level file under server/ is a room (server/composition is
// server/composition.ts); lib/ is one room of shared schemas and pure helpers, apart from lib/client
// (the browser's); every folder under components/ is a room; app/ and plugins/ are one room each.
// A room may always import its own files; npm packages, Node built-ins and generated/ are judged by
// the other rules of .dependency-cruiser.mjs, not here.

/** What each room may import besides itself. */
export const ROOMS = {
  // The bottom: the ports every room uses (clock, logger, change notifications, once-per-cluster gates,
  // cluster ports with the ledger fence, same-origin check).
  "server/kernel": ["lib"],
  lib: [],
  "server/config": ["lib"],
  "server/sandbox": ["lib"],
  "server/stores": ["lib"],
  "server/tools": ["lib", "server/stores"],
  "server/llm": ["lib", "server/stores"],
  "server/engine": ["lib", "server/kernel", "server/tools", "server/llm", "server/stores"],
  "server/monitor": ["lib", "server/kernel", "server/engine"],
  "server/auth": ["lib", "server/kernel"],
  "server/accounts": ["lib", "server/kernel", "server/auth", "server/stores"],
  "server/settings": ["lib", "server/kernel", "server/stores"],
  "server/usage": ["lib", "server/kernel", "server/engine", "server/monitor", "server/stores"],
  "server/telemetry": ["lib", "server/monitor"],
  "server/analytics": ["lib", "server/kernel", "server/monitor"],
  "server/data-dir": [],
  "server/db": [
    "lib",
    "server/kernel",
    "server/stores",
    "server/monitor",
    "server/auth",
    "server/analytics",
    "server/data-dir",
  ],
  "server/search": ["lib", "server/db", "server/monitor"],
  "server/mcp": ["lib", "server/kernel", "server/engine", "server/tools", "server/stores", "server/sandbox"],
  "server/plugins": ["lib", "server/engine", "server/tools", "server/sandbox"],
  "server/rerun": [
    "lib",
    "server/kernel",
    "server/engine",
    "server/llm",
    "server/tools",
    "server/monitor",
    "server/stores",
  ],
  "server/platforms": ["lib", "server/kernel", "server/engine", "server/monitor", "server/stores", "server/auth"],
  "server/composition": [
    "lib",
    "server/kernel",
    "server/engine",
    "server/llm",
    "server/tools",
    "server/mcp",
    "server/plugins",
    "server/monitor",
    "server/rerun",
    "server/sandbox",
    "server/stores",
    "server/usage",
  ],
  "server/http": [
    "lib",
    "server/kernel",
    "server/composition",
    "server/engine",
    "server/accounts",
    "server/analytics",
    "server/auth",
    "server/db",
    "server/mcp",
    "server/monitor",
    "server/platforms",
    "server/plugins",
    "server/rerun",
    "server/search",
    "server/settings",
    "server/stores",
    "server/telemetry",
    "server/tools",
    "server/usage",
  ],
  "server/realtime": ["lib", "server/kernel", "server/auth", "server/http", "server/monitor"],
  // Implements the kernel's cluster ports; only the composition (app-server.ts, start.ts) imports it.
  "server/cluster": [
    "lib",
    "server/kernel",
    "server/db",
    "server/engine",
    "server/http",
    "server/monitor",
    "server/realtime",
    "server/stores",
  ],
  "server/app-server": [
    "lib",
    "server/kernel",
    "server/accounts",
    "server/analytics",
    "server/auth",
    "server/cluster",
    "server/composition",
    "server/data-dir",
    "server/db",
    "server/engine",
    "server/http",
    "server/llm",
    "server/mcp",
    "server/platforms",
    "server/realtime",
    "server/search",
    "server/settings",
  ],
  "server/launcher": [],
  "server/start": [
    "server/app-server",
    "server/auth",
    "server/cluster",
    "server/config",
    "server/data-dir",
    "server/db",
    "server/launcher",
    "server/sandbox",
  ],
  // A program: nothing imports it.
  "server/cli": [
    "lib",
    "server/kernel",
    "server/composition",
    "server/config",
    "server/db",
    "server/monitor",
    "server/rerun",
    "server/stores",
  ],
  // The dashboard: the browser's lib, components by feature, pages.
  "lib/client": ["lib"],
  "components/ui": ["lib/client"],
  "components/shell": ["lib", "lib/client", "components/ui"],
  "components/accounts": ["lib", "lib/client", "components/ui"],
  "components/audit": ["lib", "lib/client", "components/ui"],
  "components/cluster": ["lib", "lib/client", "components/ui"],
  "components/settings": ["lib", "lib/client", "components/ui"],
  "components/sources": ["lib", "lib/client", "components/ui"],
  "components/platforms": ["lib", "lib/client", "components/ui"],
  "components/analytics": ["lib", "lib/client", "components/ui"],
  "components/chat": ["lib", "lib/client", "components/ui"],
  "components/tools": ["lib", "lib/client", "components/ui"],
  "components/model-input": ["lib", "lib/client", "components/ui", "components/tools"],
  "components/cycle": ["lib", "lib/client", "components/ui", "components/model-input"],
  "components/sessions": ["lib", "lib/client", "components/ui", "components/shell"],
  "components/data": ["lib", "lib/client", "components/ui", "components/sessions"],
  "components/usage": ["lib", "lib/client", "components/ui", "components/sessions"],
  "components/diff": ["lib", "lib/client", "components/ui", "components/sessions"],
  "components/search": ["lib", "lib/client", "components/ui", "components/sessions", "components/diff"],
  "components/session-live": [
    "lib",
    "lib/client",
    "components/ui",
    "components/shell",
    "components/sessions",
    "components/chat",
    "components/cycle",
  ],
  "components/replay": [
    "lib",
    "lib/client",
    "components/ui",
    "components/sessions",
    "components/session-live",
    "components/cycle",
    "components/diff",
  ],
  app: ["lib", "lib/client", "components"],
  // Plugins see the host only through the plugin SDK (the plugins-use-the-sdk rule narrows this further).
  plugins: ["lib", "server/plugins"],
};

/** The folders whose files belong to rooms (a file under them outside every room breaks room-has-a-row). */
export const ROOTS = ["server", "lib", "components", "app", "plugins"];

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The regular expression of a room's files. `components` (in a row's list) stands for every room under
 * components/; a room under server/ is a folder or a top-level file of that name.
 */
export function roomPath(room) {
  if (room === "lib") return "^lib/(?!client/)";
  if (room === "components" || room === "app" || room === "plugins") return `^${room}/`;
  return `^${escapeRegExp(room)}(/|\\.[^/]+$)`;
}
