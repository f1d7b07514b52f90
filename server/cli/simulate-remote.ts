// `simulate --server URL`: a script's messages sent to a running server's API at their times, into a
// session made for them (or `--session ID`, made when missing), the session's events printed as JSON
// lines on stdout like the local simulation's until it is idle. The per-session intake limit (429 with
// Retry-After, docs/api.md) is waited out, so a script faster than the limit still arrives whole.
import {
  acceptedMessageSchema,
  createdSessionSchema,
  eventsPageSchema,
  sessionSummarySchema,
  type InboundMessageBody,
} from "../../lib/api/schemas";
import type { ScriptLine } from "../../lib/simulate/script";

export interface RemoteOptions {
  server: string;
  token: string;
  lines: readonly ScriptLine[];
  /** The script's name: the session's. */
  name: string;
  sessionId?: string;
  isGroupChat: boolean;
  speed: number;
  followWaits: boolean;
}

const POLL_MS = 200;
/** Idle this many looks in a row (a turn a timer is about to start is not missed). */
const IDLE_LOOKS = 3;

export class RemoteError extends Error {
  override name = "RemoteError";
}

export async function simulateRemote(opts: RemoteOptions): Promise<void> {
  const api = client(opts.server, opts.token);
  const sessionId = await openSession(api, opts);
  process.stderr.write(`[simulate] server ${opts.server}, session ${sessionId}\n`);
  let printed = 0;
  const print = async () => {
    for (;;) {
      const page = eventsPageSchema.parse(
        await api.json("GET", `/api/sessions/${enc(sessionId)}/events?afterSeq=${printed}&limit=5000`),
      );
      for (const event of page.events) process.stdout.write(`${JSON.stringify(event)}\n`);
      printed = page.events.at(-1)?.seq ?? printed;
      if (page.events.length === 0 || printed >= page.lastSeq) return;
    }
  };

  const started = Date.now();
  for (const [i, line] of opts.lines.entries()) {
    const due = opts.speed === 0 ? 0 : started + line.at / opts.speed - Date.now();
    if (due > 0) await delay(due);
    if (line.forward?.length)
      process.stderr.write(`[simulate] line ${i + 1}: a forwarded message goes to the API as its text only\n`);
    await send(api, sessionId, messageOf(line, i));
    await print();
  }
  for (let idle = 0; idle < IDLE_LOOKS;) {
    await delay(POLL_MS);
    await print();
    const s = sessionSummarySchema.parse(await api.json("GET", `/api/sessions/${enc(sessionId)}`));
    const busy = s.pendingMessages > 0 || s.agentState === "running" || (opts.followWaits && s.agentState === "wait");
    idle = busy ? 0 : idle + 1;
  }
  await print();
}

/** The body of POST /api/sessions/:id/messages for a script line (its id `m<n>` when it names none). */
function messageOf(line: ScriptLine, index: number): InboundMessageBody {
  return {
    userId: line.userId,
    userName: line.userName,
    ...(line.groupCard ? { groupCard: line.groupCard } : {}),
    text: line.text || (line.forward ?? []).map((f) => `${f.sender}: ${f.text}`).join("\n"),
    mentionsBot: line.mentionsBot,
    atBot: line.atBot,
    ...(line.replyTo ? { replyTo: line.replyTo } : {}),
    messageId: line.messageId ?? `m${index + 1}`,
  };
}

async function openSession(api: Api, opts: RemoteOptions): Promise<string> {
  const body = {
    name: opts.name,
    isGroupChat: opts.isGroupChat,
    platform: "simulate",
    ...(opts.sessionId ? { id: opts.sessionId } : {}),
  };
  const res = await api.request("POST", "/api/sessions", body);
  // A session of that id already there: the script goes on in it.
  if (res.status === 409 && opts.sessionId) return opts.sessionId;
  if (res.status !== 201) throw new RemoteError(`POST /api/sessions answered ${res.status}: ${await res.text()}`);
  return createdSessionSchema.parse(await res.json()).id;
}

/** Sends one message, waiting out the intake limit (429 Retry-After). */
async function send(api: Api, sessionId: string, body: InboundMessageBody): Promise<void> {
  for (;;) {
    const res = await api.request("POST", `/api/sessions/${enc(sessionId)}/messages`, body);
    if (res.status === 202) return void acceptedMessageSchema.parse(await res.json());
    if (res.status === 429 || res.status === 503) {
      const seconds = Number(res.headers.get("retry-after"));
      await res.body?.cancel();
      await delay(Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 1000);
      continue;
    }
    throw new RemoteError(`message ${body.messageId ?? ""}: the server answered ${res.status}: ${await res.text()}`);
  }
}

interface Api {
  request(method: string, path: string, body?: unknown): Promise<Response>;
  json(method: string, path: string): Promise<unknown>;
}

function client(server: string, token: string): Api {
  const base = server.replace(/\/+$/, "");
  const request = async (method: string, path: string, body?: unknown) => {
    try {
      return await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : "";
      throw new RemoteError(`cannot reach ${base}: ${error instanceof Error ? error.message : String(error)}${cause}`);
    }
  };
  return {
    request,
    async json(method, path) {
      const res = await request(method, path);
      if (!res.ok) throw new RemoteError(`${method} ${path} answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as unknown;
    },
  };
}

const enc = encodeURIComponent;

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
