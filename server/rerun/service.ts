// A re-run or fork as the API and the CLI ask for it: the original read from the stores and the ledger,
// run (run.ts), and written back as a derived session linked to its origin.
import { performance } from "node:perf_hooks";
import type { MonitorEvent } from "../../lib/events/schemas";
import type { RerunRequest, RerunResponse, SessionOrigin } from "../../lib/rerun/schemas";
import type { EventLedger } from "../monitor/ledger";
import { claimSessionId, type SessionClaim } from "../monitor/session-claim";
import type { SessionUsageTotals } from "../stores/usage";
import type { Stores } from "../stores/types";
import { rerun, type RecordedSession, type RerunWorld } from "./run";
import { RerunInputError } from "./errors";

/** A session longer than this is refused (its events are held in memory while it runs). */
export const MAX_RERUN_EVENTS = 200_000;
const PAGE = 2_000;

export interface RerunServiceDeps {
  stores: Stores;
  ledger: EventLedger;
  /** The server's part of a run: settings, tools, hooks, data; `live` by what the request continues with. */
  world(continueWith: "model" | "simulated" | "stop"): RerunWorld;
  /** The monitor bus takes over the derived session's seq (its events are written to the ledger directly). */
  adoptSeq(sessionId: string, seq: number): void;
  now(): number;
  /** A cluster node's lease taking for the derived session's new id (monitor/session-claim.ts). */
  claim?: SessionClaim;
}

export class RerunService {
  constructor(private readonly deps: RerunServiceDeps) {}

  /** `save` false: a check only (the CLI's default), nothing is written. */
  async run(sessionId: string, request: RerunRequest, actor: string, save = true): Promise<RerunResponse> {
    const started = performance.now();
    const { stores } = this.deps;
    const session = await stores.sessions.get(sessionId);
    if (!session) throw new RerunInputError(`no session ${sessionId}`, 404);
    const edits = request.edits ?? [];
    const kind = edits.length ? "fork" : "rerun";
    if (kind === "fork" && !request.fromCycle)
      throw new RerunInputError("a fork needs fromCycle: where its edits apply");
    const recorded = await this.recorded(session);
    if (!recorded.calls.length && recorded.events.some((e) => e.type === "cycle.start")) {
      throw new RerunInputError(
        `session ${sessionId} has no recorded model calls (recorded before re-runs existed)`,
        409,
      );
    }
    const continueWith = request.continueWith ?? (kind === "fork" ? "model" : "stop");
    const id = await this.newId(kind);
    const result = await rerun(recorded, this.deps.world(continueWith), {
      id,
      name: request.name ?? `${session.name} · ${kind === "fork" ? "fork" : "re-run"}`,
      fromCycle: request.fromCycle ?? null,
      edits,
      settings: request.settings ?? null,
      continueWith,
      liveReadOnlyTools: request.liveReadOnlyTools ?? false,
    });
    const stats = { ...result.stats, durationMs: Math.round(performance.now() - started) };
    const origin: SessionOrigin = {
      kind,
      sessionId,
      fromCycle: request.fromCycle ?? null,
      at: this.deps.now(),
      actor,
      edits,
      settings: request.settings ?? null,
      continueWith,
      divergence: result.divergence,
      stats,
    };
    if (save) await this.write({ ...result, session: { ...result.session, origin } });
    return { id, divergence: result.divergence, stats };
  }

  /** A new session id this node may write (its ledger fence lets only a lease holder append). */
  private async newId(kind: "rerun" | "fork"): Promise<string> {
    const id = await claimSessionId(this.deps.claim, kind);
    if (id !== null) return id;
    throw new RerunInputError("this node could not take a new session id to write the run into; try again", 503);
  }

  /** Everything of the original a run reads; refused when too long to hold. */
  private async recorded(session: RecordedSession["session"]): Promise<RecordedSession> {
    const { stores, ledger } = this.deps;
    const events: MonitorEvent[] = [];
    for (let after = 0; ;) {
      const page = await ledger.read(session.id, after, PAGE);
      events.push(...page);
      if (events.length > MAX_RERUN_EVENTS)
        throw new RerunInputError(`session ${session.id} has more than ${MAX_RERUN_EVENTS} events to re-run`, 409);
      if (page.length < PAGE) break;
      after = page[page.length - 1].seq;
    }
    const [messages, calls, tools] = await Promise.all([
      stores.messages.list(session.id),
      stores.modelCalls.list(session.id),
      stores.toolRecords.list(session.id),
    ]);
    return { session, events, messages, calls, tools };
  }

  /** The derived session: its record (with origin) first, then its events, messages and records. */
  private async write(result: Awaited<ReturnType<typeof rerun>>): Promise<void> {
    const { stores, ledger } = this.deps;
    await stores.sessions.upsert(result.session);
    for (let i = 0; i < result.events.length; i += PAGE) await ledger.append(result.events.slice(i, i + PAGE));
    this.deps.adoptSeq(result.session.id, result.events.length);
    if (result.snapshot) await stores.sessions.saveSnapshot(result.snapshot);
    for (const message of result.messages) await stores.messages.save(message);
    for (const { id: _id, ...record } of result.tools) await stores.toolRecords.record(record);
    for (const { id: _id, ...call } of result.calls) await stores.modelCalls.record(call);
    await stores.sessions.setUsageTotals(result.session.id, await this.usageOf(result));
  }

  /**
   * A derived session's usage: the tokens of every call it made, answered from the recording or by a
   * model (what its conversation took, to compare with the original's), and the cost of what it really
   * spent, its live calls' usage rows (recorded while it ran, before its session row existed).
   */
  private async usageOf(result: Awaited<ReturnType<typeof rerun>>): Promise<SessionUsageTotals> {
    const id = result.session.id;
    const live = (await this.deps.stores.usage.sessionTotals([id])).get(id);
    const totalTokens = result.calls.reduce(
      (sum, c) => sum + (c.response ? c.response.usage.promptTokens + c.response.usage.completionTokens : 0),
      0,
    );
    return { totalTokens, costUsd: live?.costUsd ?? 0, unpricedCalls: live?.unpricedCalls ?? 0 };
  }
}
