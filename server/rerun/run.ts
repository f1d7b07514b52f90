// One re-run: the original's arrivals fed at their times on a virtual clock into a fresh engine of the
// current code and settings, its model calls answered by the cassette and its tool calls from the
// recording. Nothing it does leaves it: its events, messages and records come back to the caller
// (server/rerun/service.ts writes them as the derived session).
import type { MaisakaConfig } from "../../lib/config/schema";
import type { EventData, EventType, MonitorEvent } from "../../lib/events/schemas";
import type { ModelTask } from "../../lib/llm/messages";
import type { ModelCall } from "../../lib/rerun/cassette";
import type { ContinueWith, Divergence, ForkEdit, RerunSettings, RerunStats } from "../../lib/rerun/schemas";
import {
  HeartflowManager,
  type DeliveryResult,
  type EventSink,
  type HookPayloads,
  type HookRunner,
  type OutboundSink,
} from "../engine";
import type { Logger } from "../kernel/logger";
import type { ModelClient } from "../llm/model-client";
import { createMemoryStores } from "../stores/memory";
import type { ChatMessageRecord } from "../stores/messages";
import type { ModelCallStore } from "../stores/model-calls";
import type { RuntimeSnapshot, SessionRecord } from "../stores/sessions";
import type { Stores } from "../stores/types";
import type { ToolRecord } from "../stores/tool-records";
import type { ToolProvider } from "../tools/provider";
import { CassetteModel, type RequestDivergence } from "./cassette-model";
import { cycleViewsOf } from "../../lib/rerun/cycle-view";
import { firstDivergence } from "./divergence";
import { Quiescence } from "./quiescence";
import { RecordedTools } from "./recorded-tools";
import { RerunInputError } from "./errors";
import { withSettings } from "./settings";
import { OriginalOrder, timelineOf, type Arrival } from "./timeline";
import { trackedHooks, trackedProvider, trackedStore } from "./tracked";
import { VirtualClock, type DueTimer } from "./virtual-clock";

/** What was recorded of the original. */
export interface RecordedSession {
  session: SessionRecord;
  events: readonly MonitorEvent[];
  messages: readonly ChatMessageRecord[];
  calls: readonly ModelCall[];
  tools: readonly ToolRecord[];
}

/** What the run borrows from the server: the current settings, tools, hooks and the bot's data (read only). */
export interface RerunWorld {
  config: MaisakaConfig;
  isEnabled(toolName: string, sessionId: string): boolean;
  hooks: HookRunner;
  providers: () => ToolProvider[];
  data: Pick<Stores, "emojis" | "jargon" | "memories" | "persons">;
  /** The model after the divergence (continueWith model or simulated); null: stop there. */
  live: ModelClient | null;
  /** Wraps the run's model client (the server records the run's own calls, so a re-run can be re-run). */
  recordCalls?: (model: ModelClient, store: ModelCallStore, clock: VirtualClock) => ModelClient;
  logger: Logger;
}

export interface RerunPlan {
  /** The derived session's id and name. */
  id: string;
  name: string;
  fromCycle: string | null;
  edits: readonly ForkEdit[];
  settings: RerunSettings | null;
  continueWith: ContinueWith;
  liveReadOnlyTools: boolean;
}

export interface RerunResult {
  session: SessionRecord;
  /** The run's last saved state (the session list counts its cycles from it). */
  snapshot: RuntimeSnapshot | null;
  events: MonitorEvent[];
  messages: ChatMessageRecord[];
  tools: ToolRecord[];
  calls: ModelCall[];
  divergence: Divergence | null;
  stats: Omit<RerunStats, "durationMs">;
}

/** The hook points that come right before a model call, and that call's task. */
const HOOKED_CALLS: Partial<Record<keyof HookPayloads, ModelTask>> = {
  "maisaka.planner.before_request": "planner",
  "maisaka.replyer.before_model_request": "replyer",
};

/** After the original's last event, a run that went on with a model may take this long (engine clock). */
const LIVE_TAIL_MS = 10 * 60_000;
/**
 * How late an engine timer may have run in a recording on the wall clock (a loaded event loop): within
 * this, the original's order of events decides whether a message came before it (OriginalOrder).
 */
const TIMER_LATENESS_MS = 1_000;
/** A guard against a timer that re-arms itself forever. */
const MAX_STEPS = 500_000;

export async function rerun(recorded: RecordedSession, world: RerunWorld, plan: RerunPlan): Promise<RerunResult> {
  const originalCycles = cycleViewsOf(recorded.events);
  const fork = forkPoint(recorded.events, plan.fromCycle);
  const start = recorded.events[0]?.ts ?? recorded.session.createdAt;
  const clock = new VirtualClock(start);
  const quiet = new Quiescence();
  const stores = createMemoryStores({ now: () => clock.now() });
  const session: SessionRecord = {
    ...recorded.session,
    id: plan.id,
    name: plan.name,
    origin: undefined,
    imported: undefined,
    createdAt: start,
    lastActiveAt: start,
  };
  await stores.sessions.upsert(session);

  let requestDivergence: RequestDivergence | null = null;
  const cassette = new CassetteModel({
    calls: recorded.calls,
    clock,
    quiet,
    forcedUntil: fork.at ?? Number.NEGATIVE_INFINITY,
    live: world.live,
    onDivergence: (d) => (requestDivergence ??= d),
  });
  const tools = new RecordedTools({
    records: recorded.tools,
    edits: plan.edits,
    clock,
    liveReadOnly: plan.liveReadOnlyTools,
  });
  // Until the fork point the run has the current settings; from it on, the plan's.
  const forkedConfig = withSettings(world.config, plan.settings ?? undefined);
  const offTools = new Set(plan.edits.flatMap((e) => (e.kind === "tool_off" ? [e.toolName] : [])));
  let pastFork = fork.at === null;
  const config: MaisakaConfig = { ...(pastFork ? forkedConfig : world.config) };
  const sink = new CollectingSink(clock);
  const manager = new HeartflowManager({
    config,
    clock: clock.forEngine(),
    model: world.recordCalls ? world.recordCalls(cassette, stores.modelCalls, clock) : cassette,
    stores: {
      ...stores,
      emojis: trackedStore(world.data.emojis, quiet),
      jargon: trackedStore(world.data.jargon, quiet),
      memories: trackedStore(world.data.memories, quiet),
      persons: trackedStore(world.data.persons, quiet),
    },
    events: sink,
    ledger: sink,
    hooks: trackedHooks(world.hooks, quiet, (point) => {
      const task = HOOKED_CALLS[point];
      return task ? cassette.untilNextCall(task) : Promise.resolve();
    }),
    providers: () => world.providers().map((p) => trackedProvider(p, quiet)),
    toggles: {
      isEnabled: (name) => !(pastFork && offTools.has(name)) && world.isEnabled(name, recorded.session.id),
    },
    logger: world.logger,
    outbound: new RecordedDeliveries(recorded.events),
    toolAnswers: tools,
    learns: false,
  });

  const arrivals = timelineOf({
    messages: recorded.messages,
    events: recorded.events,
    edits: plan.edits,
    forkAt: fork.at,
    sessionId: plan.id,
  });
  const lastTs = recorded.events.at(-1)?.ts ?? start;
  const horizon = Math.max(lastTs, arrivals.at(-1)?.at ?? start) + (world.live ? LIVE_TAIL_MS : 0);

  await manager.getOrCreate(session);
  const arrive = async (a: Arrival): Promise<void> => {
    if (a.kind === "fork") {
      pastFork = true;
      // Sections replaced, never edited: a running turn keeps the ones it pinned (as live settings do).
      Object.assign(config, forkedConfig);
    } else if (a.kind === "message") {
      await manager.registerMessage(session, a.message);
    } else if (a.kind === "recall") {
      await manager.recallMessage(session.id, a.messageId);
    } else {
      await manager.sendAsOperator(session, { text: a.text, replyTo: a.replyTo }, a.actor);
    }
  };
  const order = new OriginalOrder(recorded.events);
  const arrivesFirst = (a: Arrival, due: DueTimer | null): boolean => {
    if (!due || a.at < due.at) return true;
    // At the same moment a timer fires first (the recording's clock fired what was due, then took the
    // message); the fork point comes before both.
    if (a.at === due.at) return a.kind === "fork";
    return due.engine && a.at - due.at <= TIMER_LATENESS_MS && order.comesNext(a, sink.events);
  };
  let next = 0;
  for (let steps = 0; steps < MAX_STEPS; steps++) {
    await quiet.settled();
    if (cassette.halted) break;
    const arrival = arrivals[next];
    const due = clock.nextTimer();
    if (arrival && arrivesFirst(arrival, due)) {
      clock.moveTo(arrival.at);
      next++;
      await arrive(arrival);
    } else if (due !== null && due.at <= horizon) {
      clock.fireNext();
    } else break;
  }
  await manager.stopAll("re-run finished");
  if (next < arrivals.length && !cassette.halted) {
    world.logger.warn(`[rerun] ${plan.id}: ${arrivals.length - next} arrivals left when the run stopped`);
  }

  const events = sink.events;
  const rerunCycles = cycleViewsOf(events);
  return {
    session: { ...session, lastActiveAt: clock.now() },
    snapshot: await stores.sessions.loadSnapshot(plan.id),
    events,
    messages: await stores.messages.list(plan.id),
    tools: await stores.toolRecords.list(plan.id),
    calls: await stores.modelCalls.list(plan.id),
    divergence: firstDivergence({
      original: originalCycles,
      rerun: rerunCycles,
      fromIndex: fork.index,
      request: requestDivergence,
      answered: world.live !== null,
    }),
    stats: {
      originalCycles: originalCycles.length,
      rerunCycles: rerunCycles.length,
      replayedCalls: cassette.replayed,
      liveCalls: cassette.liveCalls,
      replayedTools: tools.replayed,
      liveTools: tools.live,
      engineSteps: tools.engineSteps,
    },
  };
}

/**
 * Where a fork takes effect: the start of the turn holding the cycle (a turn runs on the settings it
 * started with), i.e. just after the previous turn's last cycle ended. index: the cycle's position.
 */
function forkPoint(events: readonly MonitorEvent[], fromCycle: string | null): { at: number | null; index: number } {
  if (fromCycle === null) return { at: null, index: 0 };
  const starts = events.filter((e): e is Extract<MonitorEvent, { type: "cycle.start" }> => e.type === "cycle.start");
  const index = starts.findIndex((e) => e.data.cycleId === fromCycle);
  if (index < 0) throw new RerunInputError(`no cycle ${fromCycle} in the session`, 404);
  let first = index;
  while (first > 0 && starts[first].data.roundIndex > 0) first--;
  if (first === 0) return { at: events[0]?.ts ?? starts[0].ts, index };
  const previous = starts[first - 1].data.cycleId;
  const end = events.find((e) => e.type === "cycle.end" && e.data.cycleId === previous);
  return { at: (end?.ts ?? starts[first].ts - 1) + 1, index };
}

/** The run's events, stamped on its clock; durable at once (they are written when the run ends). */
class CollectingSink implements EventSink {
  readonly events: MonitorEvent[] = [];

  constructor(private readonly clock: VirtualClock) {}

  emit<T extends EventType>(sessionId: string, type: T, data: EventData<T>): MonitorEvent {
    // The union cannot be narrowed from a generic T; the envelope is built from matching parts.
    const event = { seq: this.events.length + 1, sessionId, type, ts: this.clock.now(), data } as MonitorEvent;
    this.events.push(event);
    return event;
  }

  seqOf(): number {
    return this.events.length;
  }

  whenDurable(): Promise<void> {
    return Promise.resolve();
  }

  read(_sessionId: string, afterSeq: number, limit: number): Promise<MonitorEvent[]> {
    return Promise.resolve(this.events.slice(afterSeq, afterSeq + limit));
  }
}

/**
 * The platform's answers in the original's order: the same message ids (so a reply to the bot's message
 * names the same id) and the same failures; past the recording, delivered with no id. Nothing is sent.
 */
class RecordedDeliveries implements OutboundSink {
  private readonly outcomes: DeliveryResult[] = [];
  private next = 0;

  constructor(events: readonly MonitorEvent[]) {
    for (const e of events) {
      if (e.type === "message.sent") this.outcomes.push({ delivered: true, platformMessageId: e.data.messageId });
      if (e.type === "message.send_failed") this.outcomes.push({ delivered: false, error: e.data.error });
    }
  }

  deliver(): Promise<DeliveryResult> {
    return Promise.resolve(this.outcomes[this.next++] ?? { delivered: true, platformMessageId: null });
  }
}
