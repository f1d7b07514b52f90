// GET /api/sessions/:id/export: the session as an NDJSON bundle (lib/api/bundle.ts). Events are read
// from the ledger page by page while they are sent, so a session of any length streams in bounded
// memory. The media the events reference are gathered before the first byte, so a session whose media
// are over the limit is refused with a clear 413 rather than cut short mid-stream.
import { createHash } from "node:crypto";
import {
  BUNDLE_SCHEMA_VERSION,
  type BundleEnd,
  type BundleHeader,
  type BundleMedia,
  type BundleModelCall,
  type BundleToolRecord,
  type MediaRef,
} from "../../../lib/api/bundle";
import type { MonitorEvent } from "../../../lib/events/schemas";
import type { ModelCall } from "../../../lib/rerun/cassette";
import type { PrismaSessionMediaStore } from "../../db/stores/session-media";
import type { EventLedger } from "../../monitor/ledger";
import type { ModelCallStore } from "../../stores/model-calls";
import type { SessionRecord } from "../../stores/sessions";
import type { ToolRecord } from "../../stores/tool-records";
import { HttpError } from "../errors";

/** Events per ledger read: large enough to amortise the query, small enough to stay a few MB. */
export const EXPORT_PAGE_EVENTS = 2000;
/** Model calls per read: each holds a whole prompt (tens of kB for a planner's). */
export const EXPORT_PAGE_CALLS = 100;

/** The event types that may name a medium. */
const MEDIA_EVENT_TYPES = ["message.ingested", "message.pending", "message.sent"] as const;

export interface MediaSources {
  /** A chat image by the URL its message carries (the server's guarded fetch). */
  chatImage(url: string): Promise<{ bytes: Buffer; contentType: string }>;
  /** An emoji library file ("emoji/…"), or null when it is gone. */
  emoji(file: string): Promise<{ bytes: Buffer; contentType: string } | null>;
}

export interface SessionExportDeps {
  ledger: EventLedger;
  /** The session's last seq once the ledger holds every event up to it (events still being written are waited for). */
  lastSeq(sessionId: string): Promise<number>;
  media: MediaSources;
  /** The session's last saved runtime snapshot (JSON state), or null. */
  loadSnapshot(sessionId: string): Promise<{ state: unknown; ts: number } | null>;
  /** The session's recorded model calls (a page of Stores.modelCalls) and tool records (Stores.toolRecords). */
  modelCalls: Pick<ModelCallStore, "list">;
  toolRecords(sessionId: string): Promise<ToolRecord[]>;
  /** Media already stored for imported sessions. */
  importedMedia: PrismaSessionMediaStore;
  maxMediaBytes: number;
  now(): number;
}

/** The media references of one event (none for most). */
export function mediaRefsOf(event: MonitorEvent): MediaRef[] {
  if (event.type === "message.ingested" || event.type === "message.pending") {
    const images = event.data.images ?? [];
    return images.flatMap((image, index) =>
      image.url ? [{ type: "chat_image" as const, messageId: event.data.messageId, index, url: image.url }] : [],
    );
  }
  if (event.type === "message.sent" && event.data.kind === "emoji" && event.data.emojiFile)
    return [{ type: "emoji", file: event.data.emojiFile }];
  return [];
}

/** Reads every event of the session in seq order, a page at a time. */
export async function* ledgerPages(
  ledger: EventLedger,
  sessionId: string,
  pageSize = EXPORT_PAGE_EVENTS,
): AsyncGenerator<MonitorEvent[]> {
  for (let after = 0; ;) {
    const page = await ledger.read(sessionId, after, pageSize);
    if (page.length === 0) return;
    yield page;
    if (page.length < pageSize) return;
    after = page[page.length - 1].seq;
  }
}

/**
 * The event lines up to `lastSeq` (events emitted while the export runs belong to a later export), one
 * string per page: far fewer writes than one per event. With the ledger's raw read the stored data text
 * is copied as is (it is what JSON.stringify wrote), so the lines equal those of the parsed path.
 */
async function* eventLinePages(
  ledger: EventLedger,
  sessionId: string,
  lastSeq: number,
): AsyncGenerator<{ text: string; count: number }> {
  const id = JSON.stringify(sessionId);
  for (let after = 0; after < lastSeq;) {
    const limit = Math.min(EXPORT_PAGE_EVENTS, lastSeq - after);
    let text = "";
    let count: number;
    if (ledger.readRaw) {
      const rows = await ledger.readRaw(sessionId, after, limit);
      for (const [seq, type, ts, data] of rows)
        text += `{"kind":"event","event":{"seq":${seq},"sessionId":${id},"type":${JSON.stringify(type)},"ts":${JSON.stringify(ts)},"data":${data}}}\n`;
      count = rows.length;
      after = rows.at(-1)?.[0] ?? lastSeq;
    } else {
      const page = await ledger.read(sessionId, after, limit);
      for (const event of page) text += `{"kind":"event","event":${JSON.stringify(event)}}\n`;
      count = page.length;
      after = page.at(-1)?.seq ?? lastSeq;
    }
    if (count === 0) return;
    yield { text, count };
  }
}

async function referencedMedia(deps: SessionExportDeps, sessionId: string): Promise<MediaRef[]> {
  const refs = new Map<string, MediaRef>();
  for (let after = 0; ;) {
    const page = deps.ledger.readOfTypes
      ? await deps.ledger.readOfTypes(sessionId, MEDIA_EVENT_TYPES, after, EXPORT_PAGE_EVENTS)
      : (await deps.ledger.read(sessionId, after, EXPORT_PAGE_EVENTS)).filter((e) =>
          (MEDIA_EVENT_TYPES as readonly string[]).includes(e.type),
        );
    for (const event of page) for (const ref of mediaRefsOf(event)) refs.set(JSON.stringify(ref), ref);
    if (page.length < EXPORT_PAGE_EVENTS) break;
    after = page[page.length - 1].seq;
  }
  return [...refs.values()];
}

interface GatheredMedia {
  lines: BundleMedia[];
  missing: number;
}

/** The media lines, one per distinct content (several refs may share bytes). */
async function gatherMedia(deps: SessionExportDeps, session: SessionRecord): Promise<GatheredMedia> {
  let total = 0;
  const overLimit = () => {
    if (total > deps.maxMediaBytes)
      throw new HttpError(
        413,
        `the media of session ${session.id} are over the export limit of ${deps.maxMediaBytes} bytes (config export.maxMediaBytes)`,
      );
  };
  if (session.imported) {
    // What the bundle it came from carried, as it was.
    const lines = (await deps.importedMedia.list(session.id)).map((m) => {
      total += m.bytes.length;
      overLimit();
      return {
        kind: "media" as const,
        hash: m.hash,
        contentType: m.contentType,
        data: m.bytes.toString("base64"),
        refs: JSON.parse(m.refs) as MediaRef[], // written from a validated bundle line
      };
    });
    return { lines, missing: 0 };
  }
  const byHash = new Map<string, BundleMedia>();
  let missing = 0;
  for (const ref of await referencedMedia(deps, session.id)) {
    const found =
      ref.type === "chat_image"
        ? await deps.media.chatImage(ref.url).catch(() => null)
        : await deps.media.emoji(ref.file);
    if (!found) {
      missing++;
      continue;
    }
    const hash = createHash("sha256").update(found.bytes).digest("hex");
    const known = byHash.get(hash);
    if (known) {
      known.refs.push(ref);
      continue;
    }
    total += found.bytes.length;
    overLimit();
    byHash.set(hash, {
      kind: "media",
      hash,
      contentType: found.contentType,
      data: found.bytes.toString("base64"),
      refs: [ref],
    });
  }
  // By hash, as an imported session lists them: its export gives the same lines.
  return { lines: [...byHash.values()].sort((a, b) => (a.hash < b.hash ? -1 : 1)), missing };
}

/** A session's model calls in call order, a page at a time. */
async function* modelCallPages(store: Pick<ModelCallStore, "list">, sessionId: string): AsyncGenerator<ModelCall[]> {
  for (let after: ModelCall | undefined; ;) {
    const page = await store.list(sessionId, { after, limit: EXPORT_PAGE_CALLS });
    if (page.length > 0) yield page;
    if (page.length < EXPORT_PAGE_CALLS) return;
    after = page.at(-1);
  }
}

/** A model call's line: the ids are the database's, the importing one gives its own. */
function modelCallLine({ id: _id, sessionId: _session, ...call }: ModelCall): BundleModelCall {
  return { kind: "model_call", call };
}

function toolRecordLine({ id: _id, sessionId: _session, ...record }: ToolRecord): BundleToolRecord {
  return { kind: "tool_record", record };
}

/**
 * The bundle's lines, each a JSON text ending in "\n". Throws (before yielding) when the media are over
 * the limit; a ledger failure later ends the stream without its end line, which import refuses.
 */
export async function sessionBundle(deps: SessionExportDeps, session: SessionRecord): Promise<AsyncGenerator<string>> {
  const media = await gatherMedia(deps, session);
  const lastSeq = await deps.lastSeq(session.id);
  const header: BundleHeader = {
    kind: "header",
    schemaVersion: BUNDLE_SCHEMA_VERSION,
    session: {
      id: session.id,
      name: session.name,
      isGroupChat: session.isGroupChat,
      platform: session.platform,
      groupId: session.groupId,
      userId: session.userId,
      createdAt: session.createdAt,
      lastActiveAt: session.lastActiveAt,
      ...(session.origin ? { origin: session.origin } : {}),
    },
    counts: { events: lastSeq },
    exportedAt: deps.now(),
  };
  return (async function* lines() {
    yield `${JSON.stringify(header)}\n`;
    let events = 0;
    for await (const page of eventLinePages(deps.ledger, session.id, lastSeq)) {
      events += page.count;
      yield page.text;
    }
    const snapshot = await deps.loadSnapshot(session.id);
    // As stored (an opaque state to the store): import validates it with the runtime's schema.
    if (snapshot) yield `${JSON.stringify({ kind: "snapshot", ts: snapshot.ts, state: snapshot.state })}\n`;
    let calls = 0;
    for await (const page of modelCallPages(deps.modelCalls, session.id)) {
      calls += page.length;
      yield page.map((call) => `${JSON.stringify(modelCallLine(call))}\n`).join("");
    }
    const records = await deps.toolRecords(session.id);
    for (const record of records) yield `${JSON.stringify(toolRecordLine(record))}\n`;
    for (const line of media.lines) yield `${JSON.stringify(line)}\n`;
    const end: BundleEnd = {
      ...{ kind: "end", events, media: media.lines.length, missingMedia: media.missing },
      ...{ modelCalls: calls, toolRecords: records.length },
    };
    yield `${JSON.stringify(end)}\n`;
  })();
}
