// `npm run bench [-- --quick] [-- --only a,b] [-- --profile]`: runs every measure of the suite, each in
// its own process, prints a table and writes bench/results.json. --profile writes a V8 CPU profile of
// each measure's process to test-results/bench-profiles/<name>/ (bench/profile-summary.ts reads them).
import { fork } from "node:child_process";
import { writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { ChildReply } from "./child";
import { toResult, type BenchResult, type MeasureSpec } from "./measure";
import { measures } from "./measures";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..");

const { values: cli } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    only: { type: "string" },
    profile: { type: "boolean", default: false },
  },
});

/** `loadAverage`: the 1-minute load average at the start (and, pushed later, the end) of the run. */
function machine(loadAverage: number[]) {
  const cpus = os.cpus();
  return {
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    cpu: cpus[0]?.model.trim() ?? "unknown",
    cores: cpus.length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    loadAverage,
  };
}

const loadNow = () => Math.round(os.loadavg()[0] * 10) / 10;

function runChild(spec: MeasureSpec): Promise<ChildReply> {
  // One folder per measure: the main thread and tsx's loader thread each write a profile.
  const profileArgs = cli.profile
    ? ["--cpu-prof", `--cpu-prof-dir=${path.join(root, "test-results", "bench-profiles", spec.name)}`]
    : [];
  const child = fork(path.join(here, "child.ts"), [spec.name, ...(cli.quick ? ["--quick"] : [])], {
    execArgv: ["--import", "tsx", ...(spec.execArgv ?? []), ...profileArgs],
    cwd: root,
  });
  return new Promise((resolve) => {
    let reply: ChildReply | null = null;
    child.on("message", (message: ChildReply) => (reply = message));
    child.on("exit", (code, signal) =>
      resolve(reply ?? { kind: "error", error: `exited with ${signal ?? code} before reporting` }),
    );
  });
}

const fmt = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: n < 10 ? 3 : n < 1000 ? 1 : 0 });

function printTable(rows: BenchResult[]): void {
  const cells = rows.map((r) => [
    r.name,
    fmt(r.value),
    r.unit,
    fmt(r.baseline),
    fmt(r.ratio),
    r.target,
    r.pass ? "pass" : "FAIL",
  ]);
  const head = ["name", "value", "unit", "baseline", "ratio", "target", "pass"];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const numeric = new Set([1, 3, 4]);
  const line = (c: string[]) =>
    `| ${c.map((v, i) => (numeric.has(i) ? v.padStart(widths[i]) : v.padEnd(widths[i]))).join(" | ")} |`;
  console.log(line(head));
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const c of cells) console.log(line(c));
  console.log();
  for (const r of rows) console.log(`${r.name}: ${r.note}`);
}

async function main(): Promise<number> {
  const only = cli.only?.split(",").map((s) => s.trim());
  const selected = only ? measures.filter((m) => only.includes(m.name)) : measures;
  if (only && selected.length !== only.length) {
    console.error(`unknown measure in --only; known: ${measures.map((m) => m.name).join(", ")}`);
    return 2;
  }
  const started = Date.now();
  const host = machine([loadNow()]);
  // Other processes' share of the machine shows in every figure; say so when it is large.
  if (host.loadAverage[0] > host.cores / 2)
    console.error(
      `warning: load average ${host.loadAverage[0]} on ${host.cores} cores: other processes will colour the figures`,
    );
  const results: BenchResult[] = [];
  const failures: string[] = [];
  for (const spec of selected) {
    process.stderr.write(`${spec.name}... `);
    const t0 = Date.now();
    const reply = await runChild(spec);
    process.stderr.write(`${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
    if (reply.kind !== "result") {
      failures.push(`${spec.name}: ${reply.error}`);
      continue;
    }
    results.push(toResult(spec, reply.measurement));
    for (const also of spec.also ?? []) {
      const m = reply.measurement.also?.[also.name];
      if (m) results.push(toResult(also, m));
      else failures.push(`${also.name}: not reported by ${spec.name}`);
    }
  }
  host.loadAverage.push(loadNow());
  const report = { machine: host, date: new Date().toISOString(), quick: cli.quick, results };
  writeFileSync(path.join(here, "results.json"), `${JSON.stringify(report, null, 2)}\n`);
  console.log(
    `\n${host.cpu}, ${host.cores} cores, ${host.memoryGiB} GiB, node ${host.node}, load average ${host.loadAverage.join(" → ")}${cli.quick ? " (quick)" : ""}\n`,
  );
  printTable(results);
  console.log(
    `\n${results.filter((r) => r.pass).length}/${results.length} targets met in ${((Date.now() - started) / 1000).toFixed(0)} s; bench/results.json written`,
  );
  if (cli.profile)
    console.log(
      "CPU profiles: test-results/bench-profiles/<name>/ (node --import tsx bench/profile-summary.ts <folder>)",
    );
  for (const f of failures) console.error(`\nmeasure failed: ${f}`);
  return failures.length ? 1 : 0;
}

process.exitCode = await main();
