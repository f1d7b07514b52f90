// POST /api/sessions/import: an export bundle (lib/api/bundle.ts) becomes a new read-only session.
// Two passes: the body is read line by line, each line validated and spooled to a temp file (bounded
// memory whatever the size: a line over MAX_BUNDLE_LINE_BYTES or a body over the configured total
// answers 413 naming the line, neither ever held whole), and only a bundle valid to its end line is
// written: a malformed line answers 400 naming it, with nothing written.
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, type WriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { once } from "node:events";
import type { z } from "zod";
import {
  bundleHeaderSchema,
  bundleLineSchema,
  type BundleHeader,
  type BundleMedia,
  type BundleModelCall,
  type BundleSnapshot,
  type BundleToolRecord,
  type ImportedSession,
} from "../../../lib/api/bundle";
import { isPlatformSessionId, isReservedSessionId } from "../../../lib/api/schemas";
import { nestsDeeperThan, TOO_DEEP } from "../../../lib/json/depth";
import type { MonitorEvent } from "../../../lib/events/schemas";
import type { PrismaSessionMediaStore } from "../../db/stores/session-media";
import { lastSeqOf, type EventLedger } from "../../monitor/ledger";
import { claimSessionId, type SessionClaim } from "../../monitor/session-claim";
import type { ModelCallStore } from "../../stores/model-calls";
import type { SessionStore } from "../../stores/sessions";
import type { ToolRecordStore } from "../../stores/tool-records";
import { HttpError } from "../errors";

/** Events per ledger append while writing an imported session. */
const WRITE_BATCH = 2000;
/** The longest line a bundle may have (docs/interface.md#trust-boundaries): an export's largest, a 10 MiB image, fits. */
export const MAX_BUNDLE_LINE_BYTES = 16 * 1024 * 1024;
const NEWLINE = 0x0a;

export interface SessionImportDeps {
  ledger: EventLedger;
  sessions: SessionStore;
  modelCalls: Pick<ModelCallStore, "record">;
  toolRecords: Pick<ToolRecordStore, "record">;
  media: PrismaSessionMediaStore;
  /** Tells the bus the imported session's last seq. */
  adoptSeq(sessionId: string, seq: number): void;
  /** A cluster node's lease taking for the imported session's id (monitor/session-claim.ts). */
  claim?: SessionClaim;
  maxBytes: number;
}

function lineError(line: number, message: string, status = 400): HttpError {
  return new HttpError(status, `line ${line}: ${message}`, [{ path: `line ${line}`, message, in: "body" }]);
}

function zodMessage(error: z.ZodError): string {
  const issue = error.issues[0];
  const where = issue.path.length ? `${issue.path.join(".")}: ` : "";
  return `${where}${issue.message}`;
}

function parseLine(text: string, line: number): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw lineError(line, `not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  // The schemas below and the spool's JSON.stringify recurse: a deeper line would overflow the stack.
  if (nestsDeeperThan(value)) throw lineError(line, TOO_DEEP);
  return value;
}

/**
 * The body's lines (without their "\n", or "\r\n"), numbered from 1. A line is decoded only once
 * whole, so it is held at most MAX_BUNDLE_LINE_BYTES long: past that, or past `maxBytes` of body,
 * it throws 413 naming the line. The body is never destroyed (the answer still goes out on it).
 */
async function* bundleLines(body: Readable, maxBytes: number): AsyncGenerator<{ n: number; text: string }> {
  let parts: Buffer[] = [];
  let lineBytes = 0;
  let total = 0;
  let n = 1;
  const add = (piece: Buffer) => {
    lineBytes += piece.length;
    if (lineBytes > MAX_BUNDLE_LINE_BYTES)
      throw lineError(n, `longer than ${MAX_BUNDLE_LINE_BYTES} bytes (the most a bundle line may have)`, 413);
    parts.push(piece);
  };
  const take = () => {
    const text = Buffer.concat(parts, lineBytes).toString("utf8");
    parts = [];
    lineBytes = 0;
    return { n: n++, text: text.endsWith("\r") ? text.slice(0, -1) : text };
  };
  for await (const chunk of body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    // Only the bytes within the total are split, so the 413 names the line that went over it.
    const room = maxBytes - total;
    total += chunk.length;
    const within = chunk.length > room ? chunk.subarray(0, room) : chunk;
    let start = 0;
    for (let end = within.indexOf(NEWLINE); end !== -1; end = within.indexOf(NEWLINE, start)) {
      add(within.subarray(start, end));
      start = end + 1;
      yield take();
    }
    if (start < within.length) add(within.subarray(start));
    if (within !== chunk)
      throw lineError(n, `the bundle is larger than ${maxBytes} bytes (config export.maxImportBytes)`, 413);
  }
  if (lineBytes > 0) yield take();
}

interface Spooled {
  header: BundleHeader;
  file: string;
  events: number;
  media: number;
}

/** The parts after the header, in the order a bundle has them (lib/api/bundle.ts). */
const SECTIONS = ["event", "snapshot", "model_call", "tool_record", "media"] as const;
type Section = (typeof SECTIONS)[number];

async function write(out: WriteStream, text: string): Promise<void> {
  if (!out.write(text)) await once(out, "drain");
}

/** Pass one: every line checked, events and media spooled; throws on the first bad line. */
async function validateAndSpool(body: Readable, maxBytes: number, file: string): Promise<Spooled> {
  const out = createWriteStream(file);
  let header: BundleHeader | null = null;
  let n = 0;
  let events = 0;
  let media = 0;
  let snapshots = 0;
  let modelCalls = 0;
  let toolRecords = 0;
  let ended = false;
  // The furthest part seen: a line of an earlier part after it is out of order.
  let reached = 0;
  const inOrder = (section: Section, line: number, what: string) => {
    const at = SECTIONS.indexOf(section);
    if (at < reached)
      throw lineError(line, `${what} after the ${SECTIONS.slice(at + 1, reached + 1).join(" or ")} lines`);
    reached = at;
  };
  let blankAt = 0;
  try {
    for await (const line of bundleLines(body, maxBytes)) {
      const text = line.text;
      n = line.n;
      if (text.trim() === "") {
        blankAt ||= n;
        continue;
      }
      if (blankAt) throw lineError(blankAt, "blank line inside the bundle");
      if (ended) throw lineError(n, "a line after the end line");
      const value = parseLine(text, n);
      if (!header) {
        const parsed = bundleHeaderSchema.safeParse(value);
        if (!parsed.success) throw lineError(n, `not a bundle header (${zodMessage(parsed.error)})`);
        header = parsed.data;
        continue;
      }
      const parsed = bundleLineSchema.safeParse(value);
      if (!parsed.success) throw lineError(n, zodMessage(parsed.error));
      const entry = parsed.data;
      if (entry.kind === "event") {
        const { seq, sessionId } = entry.event;
        if (sessionId !== header.session.id)
          throw lineError(n, `event of session ${sessionId}, not ${header.session.id}`);
        if (seq !== events + 1) throw lineError(n, `event seq ${seq} where ${events + 1} was expected`);
        inOrder("event", n, "an event");
        events++;
        // The event as it was sent (not zod's output): the round trip stays exact.
        await write(out, `${JSON.stringify((value as { event: unknown }).event)}\n`);
      } else if (entry.kind === "snapshot") {
        if (snapshots++ || reached > SECTIONS.indexOf("snapshot"))
          throw lineError(n, "a snapshot line must follow the events, once");
        reached = SECTIONS.indexOf("snapshot");
        // As sent, like the events: the runtime's own schema checked it.
        await write(out, `${JSON.stringify(value)}\n`);
      } else if (entry.kind === "model_call" || entry.kind === "tool_record") {
        inOrder(entry.kind, n, entry.kind === "model_call" ? "a model call" : "a tool record");
        if (entry.kind === "model_call") modelCalls++;
        else toolRecords++;
        // As sent, like the events (checked above): a re-export gives the same line.
        await write(out, `${JSON.stringify(value)}\n`);
      } else if (entry.kind === "media") {
        inOrder("media", n, "a media line");
        const data = Buffer.from(entry.data, "base64");
        const hash = createHash("sha256").update(data).digest("hex");
        if (hash !== entry.hash) throw lineError(n, `media bytes hash to ${hash}, not ${entry.hash}`);
        media++;
        await write(out, `${JSON.stringify(entry)}\n`);
      } else {
        if (entry.events !== events || entry.events !== header.counts.events)
          throw lineError(
            n,
            `end line counts ${entry.events} events, the header ${header.counts.events}, the bundle has ${events}`,
          );
        if (entry.media !== media) throw lineError(n, `end line counts ${entry.media} media, the bundle has ${media}`);
        if (entry.modelCalls !== modelCalls || entry.toolRecords !== toolRecords)
          throw lineError(
            n,
            `end line counts ${entry.modelCalls} model calls and ${entry.toolRecords} tool records, the bundle has ${modelCalls} and ${toolRecords}`,
          );
        ended = true;
      }
    }
  } catch (error) {
    // The rest of the body is read and dropped while the answer goes out: the connection is kept, so
    // a client still sending gets the answer (closing it would reset the connection under its upload).
    body.resume();
    throw error;
  } finally {
    out.end();
    await once(out, "close");
  }
  if (!header) throw lineError(1, "empty body: a bundle starts with its header line");
  if (!ended) throw lineError(n + 1, "the bundle ends without its end line (cut short?)");
  return { header, file, events, media };
}

/**
 * Pass two, and the ids it writes. The original id is kept when it is free (and this node may write it);
 * an import still writing holds its id, so the same bundle sent twice at once lands twice, under two ids.
 * A write that fails half-way (the database gone) removes what it wrote; the session row comes last, so
 * even when that removal fails too nothing half-imported is listed as a session.
 */
export class SessionImporter {
  /** Ids of the imports being written now (their rows may not be readable yet). */
  private readonly writing = new Set<string>();

  constructor(private readonly deps: SessionImportDeps) {}

  async import(body: Readable): Promise<ImportedSession & { from: string }> {
    const dir = await mkdtemp(path.join(os.tmpdir(), "maisaka-import-"));
    try {
      const spooled = await validateAndSpool(body, this.deps.maxBytes, path.join(dir, "bundle.ndjson"));
      const id = await this.chooseId(spooled.header.session.id);
      try {
        await this.writeSpooled(id, spooled);
      } catch (error) {
        // Best effort: the error that stopped the import is the one to answer with.
        await this.deps.sessions.purge(id).catch(() => undefined);
        throw error;
      } finally {
        this.writing.delete(id);
      }
      return { id, events: spooled.events, media: spooled.media, from: spooled.header.session.id };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** An id held in `writing` until the import ends. */
  private async chooseId(wanted: string): Promise<string> {
    // Held before the first await: a second import of the same bundle sees it taken.
    // A platform chat's id is that chat's: an imported copy taking it would make its messages read-only.
    const free = !isReservedSessionId(wanted) && !isPlatformSessionId(wanted) && !this.writing.has(wanted);
    if (free) this.writing.add(wanted);
    let id: string | null = null;
    try {
      const taken =
        !free || (await this.deps.sessions.get(wanted)) !== null || (await lastSeqOf(this.deps.ledger, wanted)) > 0;
      id = await claimSessionId(this.deps.claim, "s", taken ? undefined : wanted);
    } finally {
      if (free && id !== wanted) this.writing.delete(wanted);
    }
    if (id === null) throw new HttpError(503, "this node could not take a new session id to import into; try again");
    this.writing.add(id);
    return id;
  }

  /** Events with their seqs, model calls, tool records and media, then the session record and its snapshot. */
  private async writeSpooled(id: string, spooled: Spooled): Promise<void> {
    const deps = this.deps;
    let batch: MonitorEvent[] = [];
    let lastSeq = 0;
    let snapshot: BundleSnapshot | null = null;
    const lines = createInterface({ input: createReadStream(spooled.file), crlfDelay: Infinity });
    for await (const text of lines) {
      // Written by pass one.
      const value = JSON.parse(text) as
        MonitorEvent | BundleMedia | BundleSnapshot | BundleModelCall | BundleToolRecord;
      if ("kind" in value && value.kind === "model_call") {
        await deps.modelCalls.record({ ...value.call, sessionId: id });
        continue;
      }
      if ("kind" in value && value.kind === "tool_record") {
        await deps.toolRecords.record({ ...value.record, sessionId: id });
        continue;
      }
      if ("kind" in value && value.kind === "snapshot") {
        // Saved with the session row (its list counts go there); one line, checked by pass one.
        snapshot = value;
        continue;
      }
      if ("kind" in value) {
        const bytes = Buffer.from(value.data, "base64");
        await deps.media.save(id, {
          hash: value.hash,
          contentType: value.contentType,
          bytes,
          refs: JSON.stringify(value.refs),
        });
        continue;
      }
      batch.push(id === value.sessionId ? value : { ...value, sessionId: id });
      lastSeq = value.seq;
      if (batch.length >= WRITE_BATCH) {
        await deps.ledger.append(batch);
        batch = [];
      }
    }
    await deps.ledger.append(batch);
    await deps.sessions.upsert({ ...spooled.header.session, id, imported: true });
    // After the events: the snapshot's coveredSeq is in the ledger before it is.
    if (snapshot) await deps.sessions.saveSnapshot({ sessionId: id, state: snapshot.state, ts: snapshot.ts });
    deps.adoptSeq(id, lastSeq);
  }
}
