// Cluster-wide operator state: tool toggles, live settings, accounts and logins, the platform audience,
// MCP servers and plugins are rows in the shared database, and each node keeps a copy in memory (its
// hot paths read it synchronously). The node where an operator changes one saves it, applies it, then
// publishes a notice naming what changed; every other node reloads that part from the database. In a
// single process nothing is published: StateChanges without a messenger is a no-op.
import { z } from "zod";
import type { EngineLogger } from "../engine";
import type { OnceGate } from "./advisory-lock";
import type { NodeMessenger, SessionDirectory } from "./types";

export const STATE_TOPIC = "state.changed";

export const stateKindSchema = z.enum(["toggles", "settings", "accounts", "logins", "audience", "mcp", "plugins"]);
export type StateKind = z.infer<typeof stateKindSchema>;

const noticeSchema = z.object({ kind: stateKindSchema });

/** Reloads one part of the state from the database (the node's copy replaced by the rows). */
export type StateReloaders = Partial<Record<StateKind, () => Promise<void>>>;

/**
 * Where the services report a change they saved. Created before them; a cluster node connects it to
 * its messenger (attachSharedState), a single process never does.
 */
export class StateChanges {
  private publish: ((kind: StateKind) => Promise<void>) | null = null;

  /** The change is saved and applied here: the other nodes are told to reload it. Never throws. */
  changed(kind: StateKind): void {
    void this.publish?.(kind);
  }

  /** @internal attachSharedState's hook. */
  connect(publish: ((kind: StateKind) => Promise<void>) | null): void {
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
export interface SharedStateOptions {
  /** With onReconnect (RedisMessenger's): notices sent while Redis was away are lost, so all is reloaded. */
  messenger: NodeMessenger & { onReconnect?(listener: () => void): () => void };
  changes: StateChanges;
  reloaders: StateReloaders;
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
    void reload(notice.data.kind);
  });
  opts.changes.connect(async (kind) => {
    try {
      await messenger.publish(STATE_TOPIC, { kind });
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
