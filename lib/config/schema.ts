// maisaka.config.json (docs/interface.md#configuration). Every field has a default so an absent file is a valid config.
import { z } from "zod";
import { modelPriceSchema } from "../usage/pricing";
import { endpointKindSchema } from "../llm/endpoints";

const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "expected HH:MM");

export const talkValueRuleSchema = z
  .object({
    /** Inclusive start, exclusive end, local time; a range may wrap past midnight. */
    start: hhmm,
    end: hhmm,
    value: z.number().min(0),
    /** Restrict the rule to group or private chats; absent = both. */
    chat: z.enum(["group", "private"]).optional(),
  })
  .strict();

/** A root offered to a server on roots/list (MCP roots: the folders it may work in). */
export const mcpRootSchema = z
  .object({
    uri: z.string().regex(/^file:\/\//, "a root is a file:// URI"),
    name: z.string().optional(),
  })
  .strict();
export type McpRoot = z.infer<typeof mcpRootSchema>;

export const mcpServerConfigSchema = z.discriminatedUnion("transport", [
  z
    .object({
      name: z.string().min(1),
      enabled: z.boolean().default(true),
      transport: z.literal("stdio"),
      command: z.string().min(1),
      args: z.array(z.string()).default([]),
      env: z.record(z.string(), z.string()).default({}),
      cwd: z.string().optional(),
      timeoutMs: z.number().int().positive().default(30_000),
      /** Answered to the server's roots/list (absent = none). */
      roots: z.array(mcpRootSchema).optional(),
    })
    .strict(),
  z
    .object({
      name: z.string().min(1),
      enabled: z.boolean().default(true),
      transport: z.enum(["streamable_http", "sse"]),
      url: z.string().url(),
      headers: z.record(z.string(), z.string()).default({}),
      bearerToken: z.string().optional(),
      timeoutMs: z.number().int().positive().default(30_000),
      /** Answered to the server's roots/list (absent = none). */
      roots: z.array(mcpRootSchema).optional(),
    })
    .strict(),
]);
export type McpServerConfig = z.infer<typeof mcpServerConfigSchema>;

export const mcpReconnectSchema = z
  .object({
    initialDelayMs: z.number().int().positive().default(1_000),
    maxDelayMs: z.number().int().positive().default(60_000),
  })
  .strict();
export type McpReconnectConfig = z.infer<typeof mcpReconnectSchema>;

/** Operator policy for servers asking our model to write (sampling/createMessage); off by default. */
export const mcpSamplingSchema = z
  .object({
    enabled: z.boolean().default(false),
    /** Cap on one answer, whatever the server asks for. */
    maxTokens: z.number().int().positive().default(1_024),
    /** Servers allowed to ask (absent = every server). */
    allowedServers: z.array(z.string().min(1)).optional(),
  })
  .strict();
export type McpSamplingConfig = z.infer<typeof mcpSamplingSchema>;

/** Server names key the status shown to operators and the tool owner: they must be unique. */
function uniqueServerNames(servers: { name: string }[], ctx: z.RefinementCtx<{ name: string }[]>): void {
  const seen = new Set<string>();
  servers.forEach((server, index) => {
    if (seen.has(server.name))
      ctx.addIssue({ code: "custom", path: [index, "name"], message: `duplicate MCP server name "${server.name}"` });
    seen.add(server.name);
  });
}

export const modelEndpointSchema = z
  .object({
    name: z.string().min(1),
    baseUrl: z.string().url(),
    /** The NAME of the environment variable holding the key, never the key (absent: no key, e.g. Ollama). */
    apiKeyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "expected the name of an environment variable, not the key")
      .optional(),
    /** Absent: detected from the base URL's host and port. */
    kind: endpointKindSchema.optional(),
    headers: z.record(z.string(), z.string()).default({}),
  })
  .strict();

const modelTargetSchema = z.object({ endpoint: z.string().min(1), model: z.string().min(1) }).strict();

/** A task's model on an endpoint, and the ones tried in order when it fails after its retries. */
const taskRouteSchema = modelTargetSchema.extend({ fallback: z.array(modelTargetSchema).default([]) }).strict();

/** The endpoint made from OPENAI_BASE_URL / OPENAI_API_KEY; tasks may name it too. */
export const DEFAULT_ENDPOINT_NAME = "default";

function knownEndpoints(
  models: { endpoints: { name: string }[]; tasks: Record<string, z.infer<typeof taskRouteSchema> | undefined> },
  ctx: z.RefinementCtx,
): void {
  const names = new Set<string>([DEFAULT_ENDPOINT_NAME]);
  models.endpoints.forEach((e, index) => {
    if (names.has(e.name))
      ctx.addIssue({
        code: "custom",
        path: ["endpoints", index, "name"],
        message: `duplicate endpoint name "${e.name}"`,
      });
    names.add(e.name);
  });
  for (const [task, route] of Object.entries(models.tasks)) {
    if (!route) continue;
    [route, ...route.fallback].forEach((target, index) => {
      if (names.has(target.endpoint)) return;
      const path = index === 0 ? ["tasks", task, "endpoint"] : ["tasks", task, "fallback", index - 1, "endpoint"];
      ctx.addIssue({ code: "custom", path, message: `unknown endpoint "${target.endpoint}"` });
    });
  }
}

/** Which groups and private peers a bot serves: deny wins; an empty allow list allows every one. */
const onebotAudienceSchema = z
  .object({
    allow: z.array(z.string().min(1)).default([]),
    deny: z.array(z.string().min(1)).default([]),
  })
  .strict()
  .prefault({});

const onebotForwardSchema = z
  .object({
    /** The implementation's WebSocket server (its "forward WebSocket" / "WebSocket server" setting). */
    url: z.url({ protocol: /^wss?$/ }),
    accessToken: z.string().optional(),
  })
  .strict();

const onebotConfigSchema = z
  .object({
    /** Checked on every reverse connection (absent or empty: reverse connections are refused). */
    accessToken: z.string().optional(),
    reverse: z
      .object({ enabled: z.boolean().default(false) })
      .strict()
      .prefault({}),
    forward: z.array(onebotForwardSchema).default([]),
    groups: onebotAudienceSchema,
    /** Private-chat users served (same rules as groups). */
    users: onebotAudienceSchema,
    /** Answer private chats at all. */
    private: z.boolean().default(true),
    /** How long an action waits for its echo answer. */
    actionTimeoutMs: z.number().int().positive().default(10_000),
    /** A reply in a group also @-mentions the person answered (besides quoting their message). */
    atOnReply: z.boolean().default(false),
    /** Sends per group (and per private peer) per minute; beyond it a send waits (platform risk control). */
    sendsPerMinute: z.number().int().positive().default(20),
    /**
     * Chat images are fetched by the server for the dashboard from public addresses only; true also
     * from loopback and private networks (an implementation serving its own files on the LAN).
     */
    imagesFromPrivateNetworks: z.boolean().default(false),
    /** A connection without a heartbeat (or any frame) this long is considered dead and closed. */
    heartbeatTimeoutMs: z.number().int().positive().default(60_000),
    /**
     * Friend requests and group invitations (OneBot request events): "ignore" them (left to QQ itself),
     * "notify" the operator (platform.request, the Platforms page), or "approve" those of users and
     * groups the bot serves (set_friend_add_request / set_group_add_request) and notify the rest.
     */
    requests: z.enum(["ignore", "notify", "approve"]).default("ignore"),
  })
  .strict();

/** A proxy's address, or a network of them in CIDR notation ("10.0.0.0/8", "fd00::/8"). */
const proxyAddressSchema = z.union([z.ipv4(), z.ipv6(), z.cidrv4(), z.cidrv6()]);

export const maisakaConfigSchema = z
  .object({
    /** How the HTTP server meets its clients (docs/deploy.md, "Behind a reverse proxy"). */
    server: z
      .object({
        /**
         * The reverse proxies in front of the server (false: none). Only a request from one of these
         * has its X-Forwarded-For (the client address throttles and logins count) and X-Forwarded-Proto
         * (https: Secure login cookies) believed.
         */
        trustProxy: z
          .union([z.literal(false), z.array(proxyAddressSchema).min(1)], {
            error: "false, or a list of the proxies' addresses (IPv4, IPv6, or networks in CIDR notation)",
          })
          .default(false),
      })
      .strict()
      .prefault({}),
    bot: z
      .object({
        nickname: z.string().min(1).default("麦麦"),
        aliases: z.array(z.string()).default([]),
        personality: z.string().default(""),
        locale: z.enum(["zh-CN", "en"]).default("zh-CN"),
      })
      .strict()
      .prefault({}),
    chat: z
      .object({
        talkValue: z.number().min(0).default(1),
        privateTalkValue: z.number().min(0).default(1),
        talkValueRules: z.array(talkValueRuleSchema).default([]),
        /** Scales talkValue for the trigger threshold (docs/engine-rules.md#trigger-threshold). */
        talkFrequencyAdjust: z.number().positive().default(1),
        maxContextSize: z.number().int().positive().default(40),
        maxPrivateContextSize: z.number().int().positive().default(60),
        messageDebounceSeconds: z.number().min(0).default(1),
        /**
         * The debounce's ceiling: a chat that never goes quiet for messageDebounceSeconds holds the
         * first message the debounce waits with at most this long (docs/engine-rules.md#debounce).
         */
        messageDebounceMaxSeconds: z.number().min(0).default(10),
        maxInternalRounds: z.number().int().positive().default(10),
        /** A mention by name (not @) also forces the next gate to continue. */
        mentionedBotReply: z.boolean().default(false),
        /** An @ of the bot forces the next gate to continue. */
        atBotReply: z.boolean().default(true),
        timingGateMaxTokens: z.number().int().positive().default(384),
        timingGateCooldownSeconds: z.number().min(0).default(8),
        plannerInterruptMaxConsecutive: z.number().int().min(0).default(2),
        maxRuntimes: z.number().int().positive().default(100),
        /**
         * Learning (jargon, memories, profiles) also runs over chat still in the window: once this many
         * unlearned chat messages piled up (0: only messages trimmed out of the window are learned from)…
         */
        learningBatchMessages: z.number().int().min(0).default(8),
        /** …or after the session was quiet this long with at least 3 unlearned messages (0: never). */
        learningIdleSeconds: z.number().min(0).default(30),
        enableEmoji: z.boolean().default(true),
        /** Pass chat images to the models as image parts (the endpoint's model must accept images). */
        vision: z.boolean().default(false),
        enableMemoryQuery: z.boolean().default(true),
        enablePersonProfileQuery: z.boolean().default(true),
        enableJargonQuery: z.boolean().default(true),
      })
      .strict()
      .prefault({}),
    models: z
      .object({
        planner: z.string().optional(),
        timingGate: z.string().optional(),
        replyer: z.string().optional(),
        utils: z.string().optional(),
        endpoints: z.array(modelEndpointSchema).default([]),
        tasks: z
          .object({
            planner: taskRouteSchema.optional(),
            timingGate: taskRouteSchema.optional(),
            replyer: taskRouteSchema.optional(),
            utils: taskRouteSchema.optional(),
          })
          .strict()
          .prefault({}),
        /** Retries on 429/5xx/timeouts before a turn ends with llm_error. */
        maxRetries: z.number().int().min(0).default(2),
        timeoutMs: z.number().int().positive().default(120_000),
        /** USD per million tokens by model name: cost per call, cycle, session and day (GET /api/usage). */
        prices: z.record(z.string().min(1), modelPriceSchema).default({}),
        /**
         * Daily cost budgets (USD, UTC day) overall and per endpoint, keyed as usage records it: the
         * endpoint's name in `endpoints` (e.g. "deepseek", not its host); the endpoint made from
         * OPENAI_BASE_URL alone by its base URL's host; "simulated". Crossing one emits
         * usage.budget_crossed and shows a banner; the engine keeps running (reporting only).
         */
        budgets: z
          .object({
            dailyUsd: z.number().positive().optional(),
            perEndpoint: z.record(z.string().min(1), z.number().positive()).default({}),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .superRefine(knownEndpoints)
      .prefault({}),
    prompts: z.record(z.string(), z.string()).default({}),
    mcp: z
      .object({
        enabled: z.boolean().default(true),
        servers: z.array(mcpServerConfigSchema).superRefine(uniqueServerNames).default([]),
        /** Backoff between reconnection attempts of a failed or dead server (absent = 1 s doubling to 60 s). */
        reconnect: mcpReconnectSchema.optional(),
        /** Ping period that notices a server gone silent (absent = 30 s; 0 = off). */
        healthCheckIntervalMs: z.number().int().min(0).optional(),
        /** Text of one tool result kept for the model; longer results are cut with a note (absent = 64 KiB). */
        maxResultChars: z.number().int().positive().optional(),
        /** Absent = sampling refused. */
        sampling: mcpSamplingSchema.optional(),
      })
      .strict()
      .prefault({}),
    platforms: z
      .object({
        /** OneBot v11 implementations (NapCat, Lagrange.OneBot, LLOneBot, go-cqhttp): docs/platforms.md. */
        onebot: onebotConfigSchema.prefault({}),
      })
      .strict()
      .prefault({}),
    plugins: z
      .object({
        dirs: z.array(z.string()).default(["plugins"]),
        /** Environment variables granted per plugin id (absent = none); the plugin Runner gets no others. */
        env: z.record(z.string(), z.array(z.string())).optional(),
        /** Settings per plugin id, checked against the plugin's manifest configSchema (absent = {}). */
        config: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
        /** Limit of one plugin tool call (absent = 30 s). */
        toolTimeoutMs: z.number().int().positive().optional(),
        /** Limit of one plugin hook handler (absent = 6 s). */
        hookTimeoutMs: z.number().int().positive().optional(),
      })
      .strict()
      .prefault({}),
    /** Housekeeping of old sessions by a periodic sweep (docs/sessions.md); both off by default. */
    retention: z
      .object({
        /** Archive sessions inactive this many days (runtime unloaded, ledger kept for replay). */
        archiveAfterDays: z.number().positive().optional(),
        /** Delete sessions archived this many days ago (every row gone; audited). */
        deleteArchivedAfterDays: z.number().positive().optional(),
        /** How often the sweep runs. */
        sweepIntervalMinutes: z.number().positive().default(60),
      })
      .strict()
      .prefault({}),
    /** Session export bundles and their import (docs/export.md). */
    export: z
      .object({
        /** Largest bundle POST /api/sessions/import reads (413 over it). */
        maxImportBytes: z
          .number()
          .int()
          .positive()
          .default(512 * 1024 * 1024),
        /** Largest total of media bytes one export carries (413 over it, before anything is sent). */
        maxMediaBytes: z
          .number()
          .int()
          .positive()
          .default(64 * 1024 * 1024),
      })
      .strict()
      .prefault({}),
    /** OpenTelemetry: each finished cycle pushed as a GenAI trace (docs/export.md). */
    telemetry: z
      .object({
        /** Absent: nothing is pushed (GET /api/sessions/:id/otel still answers). */
        otlp: z
          .object({
            /** OTLP/HTTP traces endpoint, e.g. http://localhost:4318/v1/traces (JSON encoding). */
            endpoint: z.url({ protocol: /^https?$/ }),
            headers: z.record(z.string(), z.string()).default({}),
            /** One export request's limit (the exporter retries within it). */
            timeoutMs: z.number().int().positive().default(10_000),
            /** Spans waiting to be pushed; a cycle that would go over is dropped (and counted). */
            maxQueuedSpans: z.number().int().positive().default(2048),
          })
          .strict()
          .optional(),
      })
      .strict()
      .prefault({}),
  })
  .strict();

export type MaisakaConfig = z.infer<typeof maisakaConfigSchema>;
export type McpConfig = MaisakaConfig["mcp"];
export type ChatConfig = MaisakaConfig["chat"];
export type OneBotConfig = MaisakaConfig["platforms"]["onebot"];
