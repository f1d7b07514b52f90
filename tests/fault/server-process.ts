// The real server as its own process (node --import tsx server/start.ts, API-only), so a test can
// kill it with SIGKILL and start it again on the same database. Its environment is the parent's minus
// anything pointing at a real model, token or database, plus what the test gives.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(childEnv))
    if (/^(OPENAI_|MAISAKA_|DATABASE_URL$|PORT$|HOST$)/.test(key)) delete childEnv[key];
  Object.assign(childEnv, { MAISAKA_NO_UI: "1", PORT: "0", HOST: "127.0.0.1" }, env);
  const child = spawn(process.execPath, ["--import", "tsx", "server/start.ts"], {
    cwd: root,
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  // "close", not "exit": with MAISAKA_ADMIN_TOKEN the child is the launcher, and the server (which
  // shares its output pipes) is gone only once they close.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 30_000);
    child.stdout?.on("data", () => {
      const match = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      resolve(match[1]);
    });
    void exited.then(() => reject(new Error(`server exited during start:\n${output}`)));
  });
  return { child, url, output: () => output, exited };
}
