// Users of their own for the children of a server run as root (MAISAKA_CHILD_UIDS): two pools (as two
// instances on one host would) never hand out the same uid, a uid some process still runs as is
// skipped, what an earlier holder left in the shared temp folders is gone before the next holder
// gets its uid, and releasing a uid kills whatever still runs as it, even outside its process group.
// Real processes under real uids: the uid tests need root (tests and CI run as root).
import { spawn } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ChildIsolation, ChildIsolationError } from "../../server/sandbox/child-isolation";
import { ChildUidPool, parseUidRange, processesOf, type LeasedUid } from "../../server/sandbox/child-uids";
import { until } from "../support/until";

const isRoot = process.getuid?.() === 0 && process.platform === "linux";
/** Far from the default range, so a server another test runs at the same time never meets these. */
const BASE = 63_900 + (process.pid % 50) * 2;

const leases: LeasedUid[] = [];
afterEach(async () => {
  await Promise.all(leases.splice(0).map((lease) => lease.release()));
});

async function lease(pool: ChildUidPool): Promise<LeasedUid> {
  const leased = await pool.lease();
  leases.push(leased);
  return leased;
}

/** A process of `uid` in its own session: what a child that left its group would be. */
function runAs(uid: number): number {
  const child = spawn("sleep", ["600"], { uid, gid: uid, detached: true, stdio: "ignore" });
  child.unref();
  return child.pid ?? 0;
}

describe("MAISAKA_CHILD_UIDS", () => {
  it("is a range of non-root uids; MAISAKA_CHILD_USER is refused naming its replacement", () => {
    expect(parseUidRange("61000-61999")).toEqual({ first: 61_000, last: 61_999 });
    expect(parseUidRange(" 5 - 5 ")).toEqual({ first: 5, last: 5 });
    for (const bad of ["61000", "0-10", "10-5", "a-b", "-1-5"])
      expect(() => parseUidRange(bad), bad).toThrow(/MAISAKA_CHILD_UIDS/);
    expect(() => ChildIsolation.fromEnv({ MAISAKA_CHILD_USER: "65534:65534" })).toThrow(ChildIsolationError);
    expect(() => ChildIsolation.fromEnv({ MAISAKA_CHILD_USER: "65534:65534" })).toThrow(/MAISAKA_CHILD_UIDS/);
  });

  it.runIf(isRoot)("as root: a bad range stops the start with the variable named", () => {
    expect(() => ChildIsolation.fromEnv({ MAISAKA_CHILD_UIDS: "0-10" })).toThrow(ChildIsolationError);
    expect(ChildIsolation.fromEnv({ MAISAKA_CHILD_UIDS: `${BASE}-${BASE + 1}` }).switchesUsers).toBe(true);
  });
});

describe.runIf(isRoot)("the uid pool", () => {
  it("never hands one uid to two holders, across pools (instances); released, it is free again", async () => {
    const range = { first: BASE, last: BASE + 1 };
    const one = new ChildUidPool(range);
    const other = new ChildUidPool(range);
    const a = await lease(one);
    const b = await lease(other);
    expect(new Set([a.uid, b.uid]).size).toBe(2);
    await expect(one.lease()).rejects.toThrow(/no free uid left in MAISAKA_CHILD_UIDS/);
    await a.release();
    expect((await lease(other)).uid).toBe(a.uid);
  });

  it("skips a uid some process runs as (another program's user, an orphan of a crashed instance)", async () => {
    const pid = runAs(BASE);
    try {
      await until(() => processesOf(BASE).includes(pid), "the squatter to run");
      const pool = new ChildUidPool({ first: BASE, last: BASE + 1 });
      expect((await lease(pool)).uid).toBe(BASE + 1);
      await expect(pool.lease()).rejects.toThrow(/no free uid/);
    } finally {
      process.kill(pid, "SIGKILL");
    }
  });

  it("releasing kills every process of the uid, also one outside the child's process group", async () => {
    const leased = await lease(new ChildUidPool({ first: BASE, last: BASE }));
    runAs(leased.uid);
    runAs(leased.uid);
    await until(() => processesOf(leased.uid).length === 2, "both to run");
    await leased.release();
    expect(processesOf(leased.uid)).toEqual([]);
  });

  it("removes what an earlier holder left in the shared temp folders before handing the uid out again", async () => {
    const uid = BASE + 1;
    const left = mkdtempSync(join(tmpdir(), "maisaka-left-"));
    writeFileSync(join(left, "cache"), "an earlier child's secret");
    chownSync(left, uid, uid);
    const file = join(tmpdir(), `maisaka-left-file-${process.pid}`);
    writeFileSync(file, "x");
    chownSync(file, uid, uid);
    const mine = join(tmpdir(), `maisaka-not-left-${process.pid}`);
    writeFileSync(mine, "root's own");
    try {
      expect((await lease(new ChildUidPool({ first: uid, last: uid }))).uid).toBe(uid);
      expect(existsSync(left)).toBe(false);
      expect(existsSync(file)).toBe(false);
      expect(existsSync(mine)).toBe(true);
    } finally {
      for (const path of [left, file, mine]) rmSync(path, { recursive: true, force: true });
    }
  });

  it("gives each child its own user and a home only it can enter", async () => {
    const isolation = ChildIsolation.fromEnv({ MAISAKA_CHILD_UIDS: `${BASE}-${BASE + 1}` });
    const first = await isolation.child();
    const second = await isolation.child();
    try {
      expect(first.user?.uid).not.toBe(second.user?.uid);
      const home = first.privateDir("maisaka-uid-test-");
      try {
        const stat = statSync(home.path);
        expect([stat.uid, stat.mode & 0o777]).toEqual([first.user?.uid, 0o700]);
      } finally {
        home.dispose();
      }
    } finally {
      await Promise.all([first.release(), second.release()]);
    }
  });
});
