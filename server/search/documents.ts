// What the search index takes from one ledger event: the texts an operator looks for (messages, the
// planner's text and reasoning, the gate's reasoning, tool arguments and results, failures) and what
// the filters need about the event's cycle (how it ended, the models it ran on). Pure.
import type { SearchKind } from "../../lib/api/search";
import type { MonitorEvent } from "../../lib/events/schemas";

/**
 * Longest text indexed per document. A trigram index holds about one entry per character, so a tool
 * that returned a megabyte would cost a megabyte of postings; what an operator searches for is near
 * the start of such texts.
 */
export const MAX_DOC_CHARS = 20_000;

/** Event types documentsOf reads; the JSON of any other row is not even fetched. */
export const INDEXED_TYPES = [
  "message.ingested",
  "message.sent",
  "timing_gate.result",
  "planner.finalized",
  "tool.execution",
  "cycle.end",
  "llm.error",
  "message.send_failed",
];

export interface SearchDoc {
  /** Distinguishes the documents of one event (a tool execution gives its call and its result). */
  part: number;
  kind: SearchKind;
  cycleId?: string;
  text: string;
  tool?: string;
  failed: boolean;
  /** The time the hit is shown at when it is not the event's: a message's own arrival. */
  ts?: number;
}

/** What an event says about its cycle (merged over the cycle's events). */
export interface CycleFacts {
  cycleId: string;
  endReason?: string;
  models?: string[];
  failed?: boolean;
}

export interface EventDocs {
  docs: SearchDoc[];
  cycle?: CycleFacts;
}

const NONE: EventDocs = { docs: [] };

function joined(...parts: (string | undefined)[]): string {
  return parts
    .filter((p): p is string => !!p && p.trim() !== "")
    .join("\n")
    .slice(0, MAX_DOC_CHARS);
}

function json(value: unknown): string {
  return value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value);
}

export function documentsOf(event: MonitorEvent): EventDocs {
  const one = (kind: SearchKind, text: string, more: Partial<SearchDoc> = {}): EventDocs =>
    text ? { docs: [{ part: 0, kind, text, failed: false, ...more }] } : NONE;
  switch (event.type) {
    case "message.ingested":
      // Ingested when a turn took it (after a debounce, a wait, a cooldown): found at its own time.
      return one("message", joined(event.data.speakerName, event.data.content), {
        ...(event.data.at !== undefined ? { ts: event.data.at } : {}),
      });
    case "message.sent":
      return one("message", joined(event.data.content));
    case "timing_gate.result":
      return one("gate", joined(event.data.reasoningContent, event.data.content), { cycleId: event.data.cycleId });
    case "planner.finalized": {
      const d = event.data;
      const models = [d.timingGate?.request?.model, d.request?.model].filter((m): m is string => !!m);
      const cycle: CycleFacts = {
        cycleId: d.cycleId,
        endReason: d.finalState.endReason,
        models,
        failed: !!d.finalState.error || d.finalState.endReason === "llm_error",
      };
      const docs: SearchDoc[] = [];
      const text = joined(d.planner?.reasoningContent, d.planner?.content);
      if (text) docs.push({ part: 0, kind: "planner", cycleId: d.cycleId, text, failed: false });
      if (d.finalState.error)
        docs.push({ part: 1, kind: "error", cycleId: d.cycleId, text: joined(d.finalState.error), failed: true });
      return { docs, cycle };
    }
    case "tool.execution": {
      const d = event.data;
      const base = { cycleId: d.cycleId, tool: d.toolName };
      const docs: SearchDoc[] = [
        { ...base, part: 0, kind: "tool_call", text: joined(d.toolName, json(d.args)), failed: false },
        { ...base, part: 1, kind: "tool_result", text: joined(d.result ?? d.summary), failed: !d.success },
      ];
      return { docs: docs.filter((doc) => doc.text) };
    }
    case "cycle.end":
      return { docs: [], cycle: { cycleId: event.data.cycleId, endReason: event.data.endReason } };
    case "llm.error":
      return one("error", joined(event.data.model, event.data.error), { failed: true });
    case "message.send_failed":
      return one("error", joined(event.data.target, event.data.error), { failed: true });
    default:
      return NONE;
  }
}

/** A ledger row as the indexers read it: `data` already parsed, or null when the type is not indexed. */
export interface LedgerRowData {
  sessionId: string;
  seq: number;
  type: string;
  ts: number;
  data: unknown;
}

/** documentsOf for a ledger row; a row of an older or unknown shape has nothing to find rather than stopping an index. */
export function documentsOfRow(row: LedgerRowData): EventDocs {
  if (row.data === null || row.data === undefined) return NONE;
  try {
    // Rows were written by the ledger from valid MonitorEvents (see SqliteLedger.read).
    return documentsOf({
      seq: row.seq,
      sessionId: row.sessionId,
      type: row.type,
      ts: row.ts,
      data: row.data,
    } as MonitorEvent);
  } catch {
    return NONE;
  }
}
