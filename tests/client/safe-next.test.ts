// The login's ?next= (lib/client/safe-next.ts): every way of spelling another origin that a browser
// would follow (control characters it drops, backslashes it reads as slashes, protocol-relative and
// absolute URLs, dot segments) falls back to "/", and real paths of the site come back as they were.
import { describe, expect, it } from "vitest";
import { safeNextPath } from "../../lib/client/safe-next";

const ORIGIN = "http://127.0.0.1:3000";

/** What the login page does: ?next= as the browser's URLSearchParams decodes it. */
const fromQuery = (query: string) => safeNextPath(new URLSearchParams(query).get("next"), ORIGIN);

/** Wherever the answer points, the browser stays on this origin (and not at the login again). */
function staysHome(path: string): void {
  expect(path.startsWith("/") && !path.startsWith("//"), path).toBe(true);
  expect(new URL(path, ORIGIN).origin, path).toBe(ORIGIN);
}

describe("safeNextPath", () => {
  it("refuses every spelling of another origin found in the probe and its relatives", () => {
    const attacks = [
      "next=/%09/evil.example",
      "next=/%0A/evil.example",
      "next=/%0D/evil.example",
      "next=/%0D%0A/evil.example",
      "next=%09//evil.example",
      "next=/%00/evil.example",
      "next=/%7F/evil.example",
      "next=//evil.example",
      "next=/%2F/evil.example",
      "next=///evil.example",
      "next=////evil.example/x",
      "next=/\\evil.example",
      "next=/%5Cevil.example",
      "next=%5C%5Cevil.example",
      "next=/%5C/evil.example",
      "next=/.//evil.example",
      "next=/./%09/evil.example",
      "next=/%2e//evil.example",
      "next=https://evil.example",
      "next=https:evil.example",
      "next=javascript:alert(1)",
      "next=data:text/html,x",
      "next=%20//evil.example",
      "next=evil.example",
      "next=",
      "next=/login",
      "next=/login?next=//evil.example",
      "",
    ];
    for (const attack of attacks) expect(fromQuery(attack), attack).toBe("/");
  });

  it("keeps the site's own paths with their query and fragment", () => {
    expect(fromQuery("next=%2Ftools")).toBe("/tools");
    expect(fromQuery("next=/sessions/qq%3A1%3Agroup%3A2/replay?seq=40#cycle")).toBe(
      "/sessions/qq:1:group:2/replay?seq=40#cycle",
    );
    // Encoded twice, the slash stays an encoded part of a path here.
    expect(fromQuery("next=/%252F/evil.example")).toBe("/%2F/evil.example");
    expect(fromQuery("next=/logins")).toBe("/logins");
  });

  it("stays on this origin whatever character follows a slash, a double slash or a backslash", () => {
    const characters = [
      ...Array.from({ length: 0x80 }, (_, code) => String.fromCharCode(code)),
      "\u00a0",
      "\u2028",
      "\u3000",
      "\ufeff",
      "．",
      "／",
      "＼",
    ];
    for (const prefix of ["/", "//", "/\\", "/./", ""]) {
      for (const ch of characters) {
        for (const tail of ["/evil.example", "evil.example", "\\evil.example", "@evil.example"]) {
          staysHome(safeNextPath(`${prefix}${ch}${tail}`, ORIGIN));
        }
      }
    }
  });
});
