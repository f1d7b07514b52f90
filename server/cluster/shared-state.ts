// Cluster-wide operator state: tool toggles, live settings, accounts and logins, the platform audience,
// MCP servers and plugins are rows in the shared database, and each node keeps a copy in memory (its
// hot paths read it synchronously). The node where an operator changes one saves it, applies it, then
// publishes a notice naming what changed; every other node reloads that part from the database. In a
// single process nothing is published: StateChanges without a messenger is a no-op.
import { z } from "zod";
import { eventDataSchemas, type EventData } from "../../lib/events/schemas";
import type { EngineLogger } from "../engine";
import type { OnceGate } from "./advisory-lock";
import type { NodeMessenger, SessionDirectory } from "./types";

const STATE_TOPIC = "state.changed";

const stateKindSchema = z.enum(["toggles", "settings", "accounts", "logins", "audience", "mcp", "plugins"]);
export type StateKind = z.infer<typeof stateKindSchema>;

/**
 * What the change told the sessions running where it was made (tool.toggled, operator.action): the
 * other nodes tell theirs the same.
 */
const stateAnnouncementSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("tool.toggled"), data: eventDataSchemas["tool.toggled"] }),
  z.object({ type: z.literal("operator.action"), data: eventDataSchemas["operator.action"] }),
]);
export type StateAnnouncement =
  | { type: "tool.toggled"; data: EventData<"tool.toggled"> }
  | { type: "operator.action"; data: EventData<"operator.action"> };

const noticeSchema = z.object({ kind: stateKindSchema, announce: stateAnnouncementSchema.optional() });

/** Reloads one part of the state from the database (the node's copy replaced by the rows). */
export type StateReloaders = Partial<Record<StateKind, () => Promise<void>>>;

/**
 * Where the services report a change they saved. Created before them; a cluster node connects it to
 * its messenger (attachSharedState), a single process never does.
 */
type Publish = (kind: StateKind, announce?: StateAnnouncement) => Promise<void>;

export class StateChanges {
  private publish: Publish | null = null;

  /**
   * The change is saved and applied here: the other nodes are told to reload it, and to tell their
   * running sessions `announce` once they did. Never throws.
   */
  changed(kind: StateKind, announce?: StateAnnouncement): void {
    void this.publish?.(kind, announce);
  }

  /** @internal attachSharedState's hook. */
  connect(publish: Publish | null): void {
    this.publish = publish;
  }
}

export interface SharedState {
  /** Reloads every part now (a node that missed notices while Redis was down catches up). */
  reloadAll(): Promise<void>;
  close(): void;
}

/**
 * Publishes this node's changes and reloads on the others' notices. Reloads of one kind run one at a
 * time, and notices arriving during a reload fold into one more reload after it: the last reload
 * always starts after the last notice, so the copy ends equal to the rows.
 */
interface SharedStateOptions {
  /** With onReconnect (RedisMessenger's): notices sent while Redis was away are lost, so all is reloaded. */
  messenger: NodeMessenger & { onReconnect?(listener: () => void): () => void };
  changes: StateChanges;
  reloaders: StateReloaders;
  /** Tells this node's running sessions what another node's change told its own (after the reload). */
  announce(announcement: StateAnnouncement): void;
  logger: EngineLogger;
}

export function attachSharedState(opts: SharedStateOptions): SharedState {
  const { messenger, logger } = opts;
  const running = new Map<StateKind, Promise<void>>();
  const again = new Set<StateKind>();

  const reload = (kind: StateKind): Promise<void> => {
    const reloader = opts.reloaders[kind];
    if (!reloader) return Promise.resolve();
    const current = running.get(kind);
    if (current) {
      again.add(kind);
      return current;
    }
    const run = (async () => {
      do {
        again.delete(kind);
        try {
          await reloader();
        } catch (error) {
          logger.warn(`[cluster] reloading ${kind} failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      } while (again.has(kind));
    })().finally(() => running.delete(kind));
    running.set(kind, run);
    return run;
  };

  const unsubscribe = messenger.subscribe(STATE_TOPIC, (payload, fromNodeId) => {
    // This node applied its own change before publishing it.
    if (fromNodeId === messenger.nodeId) return;
    const notice = noticeSchema.safeParse(payload);
    if (!notice.success) {
      logger.warn(`[cluster] ignored a malformed state notice from ${fromNodeId}`);
      return;
    }
    const { kind, announce } = notice.data;
    void reload(kind).then(() => announce && opts.announce(announce));
  });
  opts.changes.connect(async (kind, announce) => {
    try {
      await messenger.publish(STATE_TOPIC, announce ? { kind, announce } : { kind });
    } catch (error) {
      logger.warn(
        `[cluster] could not tell the other nodes that ${kind} changed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  });
  const reloadAll = async () => void (await Promise.all(stateKindSchema.options.map(reload)));
  const unwatch = messenger.onReconnect?.(() => void reloadAll());
  return {
    reloadAll,
    close() {
      opts.changes.connect(null);
      unsubscribe();
      unwatch?.();
    },
  };
}

/** What a cluster node gives the server for the state shared by the nodes (AppServerOptions.cluster). */
export interface ClusterStateParts {
  messenger: SharedStateOptions["messenger"];
  /** Advisory locks (server/cluster/advisory-lock.ts): the retention sweep and budget alerts once per cluster. */
  once: OnceGate;
  /** Who runs which session: analytics folds only this node's (absent: every session). */
  sessions?: Pick<SessionDirectory, "ownsLocally">;
}
