// Where a measure's time went: `node --import tsx bench/profile-summary.ts PATH [top=25]` prints the
// functions and the files (or packages) with the most self time in a V8 CPU profile. PATH is a
// .cpuprofile or a folder written by `npm run bench -- --profile`, where the busiest profile (the main
// thread, not tsx's loader thread) is read.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { z } from "zod";

const profileSchema = z.object({
  nodes: z.array(
    z.object({
      id: z.number(),
      callFrame: z.object({ functionName: z.string(), url: z.string(), lineNumber: z.number() }),
    }),
  ),
  samples: z.array(z.number()),
  timeDeltas: z.array(z.number()),
});

type Profile = z.infer<typeof profileSchema>;

const [target, topArg] = process.argv.slice(2);
if (!target) {
  console.error("usage: node --import tsx bench/profile-summary.ts FILE.cpuprofile|FOLDER [top]");
  process.exit(2);
}
const top = Number(topArg ?? 25);

const read = (file: string): Profile => profileSchema.parse(JSON.parse(readFileSync(file, "utf8")));
/** Samples that were not idle. */
function busy(p: Profile): number {
  const idle = new Set(p.nodes.filter((n) => n.callFrame.functionName === "(idle)").map((n) => n.id));
  return p.samples.filter((id) => !idle.has(id)).length;
}
const files = statSync(target).isDirectory()
  ? readdirSync(target)
      .filter((f) => f.endsWith(".cpuprofile"))
      .map((f) => path.join(target, f))
  : [target];
const [file, profile] = files.map((f) => [f, read(f)] as const).sort((a, b) => busy(b[1]) - busy(a[1]))[0];

const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

/** node_modules/<pkg>, or the project path, or the V8 pseudo-frame ("(garbage collector)", ...). */
function where(url: string, name: string): string {
  if (!url) return name.startsWith("(") ? name : "(native)";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const project = /\/(server|lib|bench|tests)\/.*$/.exec(url);
  return project ? project[0].slice(1) : url.replace(/^file:\/\//, "");
}

const functions = new Map<string, number>();
const places = new Map<string, number>();
for (const [id, us] of selfUs) {
  const frame = byId.get(id);
  if (!frame) continue;
  const place = where(frame.url, frame.functionName);
  const fn = `${frame.functionName || "(anonymous)"}  ${place}:${frame.lineNumber + 1}`;
  functions.set(fn, (functions.get(fn) ?? 0) + us);
  places.set(place, (places.get(place) ?? 0) + us);
}

function print(title: string, entries: Map<string, number>): void {
  console.log(`\n${title}`);
  for (const [key, us] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((us / total) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${key}`);
  }
}

console.log(`${file}: ${(total / 1000).toFixed(0)} ms sampled`);
print("self time by file or package", places);
print("self time by function", functions);
