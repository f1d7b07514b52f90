// The default database is maisaka.db in the data folder, so a moved data folder (MAISAKA_DATA_DIR)
// holds it too; a data folder moved before the default followed it keeps using ./data/maisaka.db.
// Run in a temp working directory (a relative URL is relative to it).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { databaseUrlFromEnv } from "../../server/db/database-url";

let cwd: string;
let work: string;
beforeEach(() => {
  cwd = process.cwd();
  work = mkdtempSync(path.join(os.tmpdir(), "maisaka-dburl-"));
  process.chdir(work);
});
afterEach(() => {
  process.chdir(cwd);
  rmSync(work, { recursive: true, force: true });
});

describe("databaseUrlFromEnv", () => {
  it("is DATABASE_URL when set, else maisaka.db in the data folder", () => {
    expect(databaseUrlFromEnv({ DATABASE_URL: " postgresql://h/db " })).toBe("postgresql://h/db");
    expect(databaseUrlFromEnv({})).toBe("file:./data/maisaka.db");
    expect(databaseUrlFromEnv({ MAISAKA_DATA_DIR: "/srv/maisaka/" })).toBe("file:/srv/maisaka/maisaka.db");
    expect(databaseUrlFromEnv({ MAISAKA_DATA_DIR: "state", DATABASE_URL: "file:./x.db" })).toBe("file:./x.db");
  });

  it("keeps an existing ./data/maisaka.db while the moved data folder has none", () => {
    mkdirSync("data");
    writeFileSync("data/maisaka.db", "");
    expect(databaseUrlFromEnv({ MAISAKA_DATA_DIR: "state" })).toBe("file:./data/maisaka.db");
    mkdirSync("state");
    writeFileSync("state/maisaka.db", "");
    expect(databaseUrlFromEnv({ MAISAKA_DATA_DIR: "state" })).toBe("file:state/maisaka.db");
    expect(databaseUrlFromEnv({ MAISAKA_DATA_DIR: "./data" })).toBe("file:./data/maisaka.db");
  });
});
