// The project's own small MCP server (stdio, the SDK's low-level Server, since McpServer.registerTool
// does not accept icons). It exposes icons (light and dark, with sizes), annotations, output schemas
// and _meta, and the bad inputs the client must survive: invalid schemas, a reserved name, huge
// results, non-JSON lines on stdout, calls that never return, a crash mid-call, and (by mode) dying
// during initialize or never answering it. Tools are listed two per page to exercise pagination.
//
// Environment: ICON_SERVER_MODE = normal | die-on-init | silent; ICON_SERVER_NOISE=1 prints non-JSON
// lines on stdout around the handshake; ICON_SERVER_SECRET is echoed by the `secret` tool;
// ICON_SERVER_REMOTE_ICONS (comma-separated URLs) adds http(s) icons to `paint`.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";

const mode = process.env.ICON_SERVER_MODE ?? "normal";
const noisy = process.env.ICON_SERVER_NOISE === "1";
const remoteIcons = (process.env.ICON_SERVER_REMOTE_ICONS ?? "")
  .split(",")
  .filter(Boolean)
  .map((src) => ({ src, mimeType: "image/png", sizes: ["32x32"] }));
const PAGE_SIZE = 2;

const LIGHT_ICON =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const DARK_ICON = "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=";

if (mode === "die-on-init") {
  process.stdin.on("data", (chunk: Buffer) => {
    if (chunk.toString("utf8").includes('"initialize"')) {
      process.stderr.write("icon server: fatal: refusing to initialize\n");
      process.exit(3);
    }
  });
}
if (mode === "silent") {
  // Reads everything, answers nothing.
  process.stdin.resume();
} else {
  await serve();
}

async function serve(): Promise<void> {
  let dynamicTools = 0;
  let cancelled = 0;
  /** `slow` calls that reached the handler, so a test can cancel one that is really in flight. */
  let slowStarted = 0;

  const staticTools: Record<string, unknown>[] = [
    {
      name: "paint",
      title: "Paint",
      description: "Paints in a colour",
      icons: [
        { src: LIGHT_ICON, mimeType: "image/png", sizes: ["48x48", "96x96"], theme: "light" },
        { src: DARK_ICON, mimeType: "image/svg+xml", sizes: ["any"], theme: "dark" },
        ...remoteIcons,
      ],
      annotations: { title: "Painter", readOnlyHint: true, openWorldHint: false },
      inputSchema: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: { color: { type: "string", description: "a colour" } },
        required: ["color"],
      },
      outputSchema: { type: "object", properties: { color: { type: "string" } }, required: ["color"] },
      _meta: { "example.com/category": "art" },
    },
    { name: "plain", inputSchema: { type: "object" } },
    {
      name: "slow",
      description: "Answers after `ms`",
      inputSchema: { type: "object", properties: { ms: { type: "number" } } },
    },
    { name: "never", description: "Never answers", inputSchema: { type: "object" } },
    { name: "stats", description: "Counters of this process", inputSchema: { type: "object" } },
    {
      name: "huge",
      description: "A result of `size` characters",
      inputSchema: { type: "object", properties: { size: { type: "number" } } },
    },
    { name: "media", description: "Every kind of content block", inputSchema: { type: "object" } },
    { name: "fail", description: "Reports a tool error", inputSchema: { type: "object" } },
    { name: "secret", description: "Echoes ICON_SERVER_SECRET", inputSchema: { type: "object" } },
    { name: "noise", description: "Prints non-JSON lines on stdout, then answers", inputSchema: { type: "object" } },
    { name: "crash", description: "Exits in the middle of the call", inputSchema: { type: "object" } },
    { name: "add_tool", description: "Adds a tool and announces it", inputSchema: { type: "object" } },
    { name: "reply", description: "Takes a builtin name", inputSchema: { type: "object" } },
    { name: "bad_input", description: "inputSchema is not an object schema", inputSchema: { type: "string" } },
    {
      name: "bad_output",
      description: "outputSchema does not compile",
      inputSchema: { type: "object" },
      outputSchema: { type: "object", properties: { x: { type: "nonsense" } } },
    },
    { name: "bad_icons", description: "icons is not a list", inputSchema: { type: "object" }, icons: "nope" },
    { name: "bad.name", description: "a dot in the name", inputSchema: { type: "object" } },
  ];

  const server = new Server(
    { name: "icon-server", version: "1.0.0", title: "Icon test server" },
    { capabilities: { tools: { listChanged: true } } },
  );

  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const all = [
      ...staticTools,
      ...Array.from({ length: dynamicTools }, (_, i) => ({
        name: `dynamic_${i + 1}`,
        inputSchema: { type: "object" },
      })),
    ];
    const start = Number(request.params?.cursor ?? 0);
    const page = all.slice(start, start + PAGE_SIZE);
    const next = start + PAGE_SIZE < all.length ? String(start + PAGE_SIZE) : undefined;
    return { tools: page as never[], ...(next ? { nextCursor: next } : {}) }; // bad tools on purpose: cast past the SDK's Tool type
  });

  const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const args = request.params.arguments ?? {};
    switch (request.params.name) {
      case "paint": {
        const color = String(args.color);
        return { content: [{ type: "text", text: `painted ${color}` }], structuredContent: { color } };
      }
      case "plain":
        return text("plain ok");
      case "slow":
        slowStarted++;
        return new Promise((resolve) => {
          const timer = setTimeout(() => resolve(text("slow done")), Number(args.ms ?? 1_000));
          extra.signal.addEventListener("abort", () => {
            cancelled++;
            clearTimeout(timer);
          });
        });
      case "never":
        return new Promise(() => undefined);
      case "stats":
        return {
          content: [{ type: "text", text: JSON.stringify({ cancelled, slowStarted, pid: process.pid }) }],
          structuredContent: { cancelled, slowStarted, pid: process.pid },
        };
      case "huge":
        return text("x".repeat(Number(args.size ?? 200_000)));
      case "media":
        return {
          content: [
            { type: "text", text: "here you go" },
            { type: "image", data: LIGHT_ICON.split(",")[1], mimeType: "image/png" },
            { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
            {
              type: "resource_link",
              uri: "file:///tmp/report.txt",
              name: "report.txt",
              description: "the report",
              mimeType: "text/plain",
            },
            { type: "resource", resource: { uri: "memo://1", text: "embedded memo", mimeType: "text/plain" } },
            { type: "resource", resource: { uri: "blob://1", blob: "AAEC", mimeType: "application/octet-stream" } },
            { type: "text", text: "bye" },
          ],
        };
      case "fail":
        return { content: [{ type: "text", text: "bad things happened" }], isError: true };
      case "secret":
        return text(process.env.ICON_SERVER_SECRET ?? "(unset)");
      case "noise":
        process.stdout.write("this is not JSON\n{ nor is this\n");
        return text("noise done");
      case "crash":
        setTimeout(() => process.exit(1), 20);
        return new Promise(() => undefined);
      case "add_tool":
        dynamicTools++;
        await server.sendToolListChanged();
        return text(`added dynamic_${dynamicTools}`);
      default:
        return { content: [{ type: "text", text: `unknown tool ${request.params.name}` }], isError: true };
    }
  });

  if (noisy) process.stdout.write("icon server starting (not JSON)\n");
  await server.connect(new StdioServerTransport());
  if (noisy) process.stdout.write("icon server ready (still not JSON)\n");
}
