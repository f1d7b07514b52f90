// maisaka.config.json loading (docs/interface.md#configuration): defaults without a file, and a bad file stops start-up
// with a ConfigError that names the offending field.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError, loadConfig, parseConfig } from "../../server/config/load";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "maisaka-config-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function writeConfig(content: unknown, name = "maisaka.config.json"): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

/** A process environment holding only these variables. */
const envOf = (vars: Record<string, string> = {}) => vars as NodeJS.ProcessEnv;

function loadError(env = envOf()): ConfigError {
  try {
    loadConfig(env, dir);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("loadConfig accepted the file");
}

describe("loadConfig", () => {
  it("uses the defaults when there is no file", () => {
    const { config, path } = loadConfig(envOf(), dir);
    expect(path).toBeNull();
    expect(config.bot).toEqual({ nickname: "麦麦", aliases: [], personality: "", locale: "zh-CN" });
    expect(config.chat).toMatchObject({
      talkValue: 1,
      privateTalkValue: 1,
      talkValueRules: [],
      maxContextSize: 40,
      maxPrivateContextSize: 60,
      messageDebounceSeconds: 1,
      maxInternalRounds: 10,
      atBotReply: true,
      mentionedBotReply: false,
      timingGateMaxTokens: 384,
      timingGateCooldownSeconds: 8,
      plannerInterruptMaxConsecutive: 2,
    });
    expect(config.mcp).toEqual({ enabled: true, servers: [] });
    expect(config.plugins).toEqual({ dirs: ["plugins"] });
  });

  it("reads ./maisaka.config.json when present and fills in the rest", () => {
    const path = writeConfig({ bot: { nickname: "小麦" }, chat: { talkValue: 0.5 } });
    const loaded = loadConfig(envOf(), dir);
    expect(loaded.path).toBe(path);
    expect(loaded.config.bot.nickname).toBe("小麦");
    expect(loaded.config.bot.locale).toBe("zh-CN");
    expect(loaded.config.chat.talkValue).toBe(0.5);
    expect(loaded.config.chat.maxContextSize).toBe(40);
  });

  it("MAISAKA_CONFIG (relative to cwd) wins over ./maisaka.config.json", () => {
    writeConfig({ chat: { talkValue: 0.5 } });
    const other = writeConfig({ chat: { talkValue: 0.2 } }, "other.json");
    const loaded = loadConfig(envOf({ MAISAKA_CONFIG: "other.json" }), dir);
    expect(loaded.path).toBe(other);
    expect(loaded.config.chat.talkValue).toBe(0.2);
  });

  it("MAISAKA_CONFIG pointing at a missing file is an error naming the path", () => {
    const error = loadError(envOf({ MAISAKA_CONFIG: "nowhere/maisaka.json" }));
    expect(error.message).toContain(join(dir, "nowhere/maisaka.json"));
    expect(error.message).toMatch(/not found/);
  });

  it("a wrong type names the field path", () => {
    writeConfig({ chat: { talkValue: "lots" } });
    const error = loadError();
    expect(error.message).toContain("chat.talkValue");
    expect(error.message).toContain(join(dir, "maisaka.config.json"));
  });

  it("an out-of-range value names the field path", () => {
    writeConfig({ chat: { maxContextSize: 0 } });
    expect(loadError().message).toContain("chat.maxContextSize");
  });

  it("server.trustProxy is false or the proxies' addresses and networks; anything else is named", () => {
    writeConfig({ server: { trustProxy: ["127.0.0.1", "fd00::/8", "10.0.0.0/8"] } });
    expect(loadConfig(envOf(), dir).config.server.trustProxy).toEqual(["127.0.0.1", "fd00::/8", "10.0.0.0/8"]);
    for (const bad of [true, "127.0.0.1", ["localhost"], ["10.0.0.0/33"]]) {
      writeConfig({ server: { trustProxy: bad } });
      expect(loadError().message).toContain("server.trustProxy: false, or a list of the proxies' addresses");
    }
  });

  it("a bad nested array item names its index", () => {
    writeConfig({
      chat: {
        talkValueRules: [
          { start: "09:00", end: "10:00", value: 1 },
          { start: "25:00", end: "02:00", value: 1 },
        ],
      },
    });
    expect(loadError().message).toContain("chat.talkValueRules.1.start");
  });

  it("a bad MCP server entry names the server field", () => {
    writeConfig({ mcp: { servers: [{ name: "remote", transport: "streamable_http", url: "not a url" }] } });
    expect(loadError().message).toContain("mcp.servers.0.url");
  });

  it("an unknown top-level key is rejected and named", () => {
    writeConfig({ chat: {}, chats: { talkValue: 1 } });
    expect(loadError().message).toContain("chats");
  });

  it("an unknown (e.g. misspelled) nested key is rejected and named, not silently dropped", () => {
    writeConfig({ chat: { talkvalue: 0.1 } });
    const message = loadError().message;
    expect(message).toContain("chat");
    expect(message).toContain("talkvalue");
  });

  it("reports every problem, one field a line", () => {
    writeConfig({ bot: { locale: "fr" }, chat: { talkValue: -1, atBotReply: "yes" } });
    const message = loadError().message;
    expect(message).toContain("bot.locale");
    expect(message).toContain("chat.talkValue");
    expect(message).toContain("chat.atBotReply");
    expect(message.split("\n").length).toBeGreaterThanOrEqual(4);
  });

  it("bad JSON is a ConfigError naming the file", () => {
    const path = writeConfig('{ "chat": { "talkValue": 0.5, } }');
    const error = loadError();
    expect(error.message).toContain(path);
    expect(error.message).toMatch(/JSON/);
  });

  it("a non-object document is rejected", () => {
    writeConfig("[1, 2, 3]");
    expect(loadError().message).toMatch(/invalid configuration/);
  });
});

describe("parseConfig", () => {
  it("accepts an empty object and names the source on failure", () => {
    expect(parseConfig({}, "inline").chat.talkValue).toBe(1);
    expect(() => parseConfig({ chat: { talkValue: "x" } }, "inline")).toThrowError(/inline[\s\S]*chat\.talkValue/);
  });
});
