// The heap after a full garbage collection. Uses global.gc when node runs with --expose-gc (the
// benchmark's child processes); otherwise turns the flag on at run time and takes gc from a fresh
// context, so the test runner needs no extra flags.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

let gc: NodeJS.GCFunction | undefined = globalThis.gc;

function collector(): NodeJS.GCFunction {
  if (!gc) {
    setFlagsFromString("--expose-gc");
    gc = runInNewContext("gc") as NodeJS.GCFunction; // the flag just set defines gc in new contexts
  }
  return gc;
}

export function heapAfterGc(): number {
  const collect = collector();
  // Twice: the first pass can leave objects that only the second finds unreachable (weak refs).
  collect();
  collect();
  return process.memoryUsage().heapUsed;
}
