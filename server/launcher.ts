// The launcher `npm start` becomes when MAISAKA_ADMIN_TOKEN is in its environment: a process's
// initial environment stays readable in /proc/<pid>/environ for its whole life, so the server runs
// as a child started without that variable, and the token reaches it over a pipe on fd 3. The
// launcher forwards SIGINT/SIGTERM/SIGHUP and ends with the server's exit code or signal; the server
// dies at once (like kill -9) when the launcher does. The launcher's own environment still holds the
// token: the server's children cannot read it (another user when the server is root; Node's
// permission model for the plugin Runner), see sandbox/child-isolation.ts.
import { spawn } from "node:child_process";
import { Socket } from "node:net";
import type { Writable } from "node:stream";

const TOKEN_VAR = "MAISAKA_ADMIN_TOKEN";
/** Set by the launcher in the server's environment: the fd the token arrives on. */
const TOKEN_FD_VAR = "MAISAKA_TOKEN_FD";
const TOKEN_FD = 3;
const FORWARDED: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

type EnvMap = Readonly<Record<string, string | undefined>>;

export function shouldLaunch(env: EnvMap): boolean {
  return env[TOKEN_VAR] !== undefined && env[TOKEN_FD_VAR] === undefined;
}

/** Starts `entry` (this same start script) as the server and mirrors its end. */
export function launchServer(entry: string, log: (line: string) => void): void {
  const env: NodeJS.ProcessEnv = { ...process.env, [TOKEN_FD_VAR]: String(TOKEN_FD) };
  const token = env[TOKEN_VAR] ?? "";
  delete env[TOKEN_VAR];
  const child = spawn(process.execPath, [...process.execArgv, entry, ...process.argv.slice(2)], {
    env,
    stdio: ["inherit", "inherit", "inherit", "pipe"],
  });
  // Kept open: its end tells the server the launcher is gone.
  (child.stdio[TOKEN_FD] as Writable | null)?.write(`${token}\n`); // a "pipe" entry is writable from this side
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  for (const signal of FORWARDED) process.on(signal, forward);
  child.once("error", (error) => {
    log(`could not start the server: ${error.message}`);
    process.exit(1);
  });
  child.once("exit", (code, signal) => {
    for (const s of FORWARDED) process.off(s, forward);
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
}

/**
 * In the server started by the launcher: the token from fd 3 (null when started directly), and from
 * then on a watch on that pipe that ends this process the moment the launcher is gone.
 */
export async function readHandedToken(env: NodeJS.ProcessEnv): Promise<string | null> {
  const fd = env[TOKEN_FD_VAR];
  if (fd === undefined) return null;
  delete env[TOKEN_FD_VAR];
  const pipe = new Socket({ fd: Number(fd), readable: true, writable: false });
  // Abrupt on purpose: the launcher killed with -9 must stop the server as a kill -9 of it would.
  pipe.once("close", () => process.kill(process.pid, "SIGKILL"));
  const token = await new Promise<string>((resolve) => {
    let received = "";
    // Stays flowing after the token, so the pipe's end is seen.
    pipe.on("data", (chunk: Buffer) => {
      received += chunk.toString("utf8");
      if (received.includes("\n")) resolve(received.split("\n")[0]);
    });
    pipe.once("end", () => resolve(received));
  });
  pipe.unref();
  return token;
}
