// One measure in its own process, so JIT state, heap and GC of one never colour another:
// `node --import tsx bench/child.ts <name> [--quick]`, result sent to the parent over IPC.
import type { Measurement } from "./measure";
import { measures } from "./measures";

export type ChildReply = { kind: "result"; measurement: Measurement } | { kind: "error"; error: string };

const [name] = process.argv.slice(2);
const spec = measures.find((m) => m.name === name);

async function main(): Promise<ChildReply> {
  if (!spec) return { kind: "error", error: `unknown measure ${name}` };
  const measure = await spec.load();
  return { kind: "result", measurement: await measure({ quick: process.argv.includes("--quick") }) };
}

const reply = await main().catch((error: unknown): ChildReply => ({
  kind: "error",
  error: error instanceof Error ? (error.stack ?? error.message) : String(error),
}));
// Exit only once the reply is out: servers and timers a measure left behind must not hold the process.
process.send?.(reply, () => process.exit(reply.kind === "result" ? 0 : 1));
