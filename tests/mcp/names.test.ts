// Names given to the model for MCP tools whose own names collided: `<server>__<tool>` within the
// function-name charset and length OpenAI accepts (letters, digits, _ and -, at most 64).
import { describe, expect, it } from "vitest";
import { qualifiedToolName } from "../../server/mcp/manager";

const FUNCTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;

describe("qualifiedToolName", () => {
  it("joins server and tool with a double underscore", () => {
    expect(qualifiedToolName("files_a", "write_file")).toBe("files_a__write_file");
  });

  it("replaces characters a function name cannot hold in the server's name", () => {
    const name = qualifiedToolName("my server.v2/文件", "read");
    expect(name).toBe("my_server_v2_____read");
    expect(name).toMatch(FUNCTION_NAME);
  });

  it("cuts long names to 64 with a hash that keeps distinct pairs distinct", () => {
    const long = "t".repeat(60);
    const a = qualifiedToolName("server_one", long);
    const b = qualifiedToolName("server_one", `${long}x`);
    expect(a).toMatch(FUNCTION_NAME);
    expect(b).toMatch(FUNCTION_NAME);
    expect(a).toHaveLength(64);
    expect(a).not.toBe(b);
    expect(qualifiedToolName("server_one", long)).toBe(a);
  });
});
