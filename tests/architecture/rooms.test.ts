// The room table (.dependency-rooms.mjs) covers the tree and keeps one direction: every folder under
// server/, lib/ and components/ (and every top-level server file) has a row, every row names a room
// that exists, no two rows allow each other. That the rows' rules fire is tests/guardrails/dependency-rules.test.ts.
import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const ROOT = resolve(import.meta.dirname, "../..");

const tableSchema = z.object({
  ROOMS: z.record(z.string(), z.array(z.string())),
  ROOTS: z.array(z.string()),
  roomPath: z.custom<(room: string) => string>((value) => typeof value === "function"),
});
const { ROOMS, ROOTS, roomPath } = tableSchema.parse(
  await import(pathToFileURL(join(ROOT, ".dependency-rooms.mjs")).href),
);
const rooms = Object.keys(ROOMS);

/** The rooms a row's entry stands for (`components` is every room under components/). */
const expand = (entry: string) => (entry === "components" ? rooms.filter((r) => r.startsWith("components/")) : [entry]);

/** The rooms whose path matches a file or folder of the tree (a folder is given with its trailing /). */
const roomsOf = (path: string) => rooms.filter((room) => new RegExp(roomPath(room)).test(path));

/** Every folder and file directly under a root, as a path with a trailing / for a folder. */
function entries(root: string): string[] {
  return readdirSync(join(ROOT, root)).map((name) =>
    statSync(join(ROOT, root, name)).isDirectory() ? `${root}/${name}/` : `${root}/${name}`,
  );
}

describe("the room table", () => {
  it.each(["server", "lib", "components"])("gives every folder under %s/ a row", (root) => {
    const withoutRow = entries(root).filter((path) => roomsOf(path).length === 0);
    expect(withoutRow).toEqual([]);
  });

  it("puts each folder and top-level file in one room only", () => {
    const paths = ROOTS.flatMap(entries);
    const ambiguous = paths
      .filter((path) => roomsOf(path).length > 1)
      .map((path) => `${path}: ${roomsOf(path).join(", ")}`);
    expect(ambiguous).toEqual([]);
  });

  it("names only rooms that exist, in its rows and in what they may import", () => {
    const onDisk = new Set(ROOTS.flatMap(entries));
    const missing = rooms.filter((room) => ![...onDisk].some((path) => new RegExp(roomPath(room)).test(path)));
    expect(missing).toEqual([]);
    const unknown = Object.entries(ROOMS).flatMap(([room, may]) =>
      may.filter((entry) => entry !== "components" && !(entry in ROOMS)).map((entry) => `${room} -> ${entry}`),
    );
    expect(unknown).toEqual([]);
  });

  it("has no two rooms that may import each other", () => {
    const allows = (a: string, b: string) => (ROOMS[a] ?? []).flatMap(expand).includes(b);
    const mutual = rooms.flatMap((a) =>
      rooms.filter((b) => a < b && allows(a, b) && allows(b, a)).map((b) => `${a} <-> ${b}`),
    );
    expect(mutual).toEqual([]);
  });

  it("keeps the kernel at the bottom: it may import lib only", () => {
    expect(ROOMS["server/kernel"]).toEqual(["lib"]);
  });

  it("lets only the composition import the cluster", () => {
    const importers = rooms.filter((room) => (ROOMS[room] ?? []).includes("server/cluster"));
    expect(importers.sort()).toEqual(["server/app-server", "server/start"]);
  });
});
