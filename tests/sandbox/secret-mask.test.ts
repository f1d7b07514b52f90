// The mask over what children and MCP servers say: secrets by value wherever they occur (longest
// first, changed live ones at once), credentials kept only as hashes recognised word by word, the
// config's and the environment's secrets found by where they are.
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../server/config/load";
import { configSecrets, environmentSecrets, SecretMask } from "../../server/sandbox/secret-mask";

describe("SecretMask", () => {
  it("masks every known value, the longest first, read anew at each call", () => {
    const mask = new SecretMask();
    let live = ["rotating-1"];
    mask.addSecrets(() => ["abcdef", "abcdefgh-longer", undefined, "short"]);
    mask.addSecrets(() => live);
    expect(mask.mask("x abcdefgh-longer y abcdef z short rotating-1")).toBe("x [secret] y [secret] z short [secret]");
    live = ["rotating-2"];
    expect(mask.mask("rotating-1 rotating-2")).toBe("rotating-1 [secret]");
  });

  it("recognises credentials kept as hashes word by word, without a value list", () => {
    const mask = new SecretMask();
    const token = "msk_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_ab";
    mask.addCheck((word) => word === token);
    expect(mask.mask(`Authorization: Bearer ${token}.`)).toBe("Authorization: Bearer [secret].");
    const remove = mask.addCheck(() => true);
    remove();
    expect(mask.mask("an_ordinary_long_identifier_here")).toBe("an_ordinary_long_identifier_here");
  });

  it("finds the config's secrets and the environment's", () => {
    const config = parseConfig(
      {
        platforms: {
          onebot: { accessToken: "onebot-token", forward: [{ url: "ws://h:1", accessToken: "fwd-token" }] },
        },
        telemetry: { otlp: { endpoint: "http://otel:4318/v1/traces", headers: { "x-honeycomb-team": "otel-key" } } },
        models: {
          endpoints: [{ name: "ds", baseUrl: "https://api.deepseek.com", apiKeyEnv: "DS", headers: { "X-K": "hdr" } }],
        },
        mcp: { servers: [{ name: "m", transport: "stdio", command: "x", env: { K: "mcp-env" } }] },
        plugins: { env: { weather: ["WEATHER"] } },
      },
      "test",
    );
    expect(configSecrets(config, { DS: "ds-key", WEATHER: "weather-key" }).sort()).toEqual(
      ["ds-key", "fwd-token", "hdr", "mcp-env", "onebot-token", "otel-key", "weather-key"].sort(),
    );
    expect(
      environmentSecrets({
        OPENAI_API_KEY: "sk-1",
        MAISAKA_ADMIN_TOKEN: "adm",
        DATABASE_URL: "postgresql://user:p%40ss@db:5432/x",
        PATH: "/usr/bin",
      }).sort(),
    ).toEqual(["adm", "p%40ss", "p@ss", "sk-1"].sort());
  });
});
