// Cluster-wide operator state: tool toggles, live settings, accounts and logins, the platform audience,
// MCP servers and plugins are rows in the shared database, and each node keeps a copy in memory (its
// hot paths read it synchronously). The node where an operator changes one saves it, applies it, then
// publishes a notice naming what changed; every other node reloads that part from the database. In a
// single process nothing is published: StateChanges (the kernel's port, server/kernel/state-changes.ts)
// without a messenger is a no-op. This file connects the port to a node's messenger.
import { z } from "zod";
import { eventDataSchemas } from "../../lib/events/schemas";
import type { Logger } from "../kernel/logger";
import type { OnceGate } from "../kernel/once-gate";
import type { NodeMessenger, SessionDirectory } from "../kernel/cluster";
import {
  STATE_KINDS,
  type StateAnnouncement,
  type StateChanges,
  type StateKind,
  type StateReloaders,
} from "../kernel/state-changes";

const STATE_TOPIC = "state.changed";

const stateKindSchema = z.enum(STATE_KINDS);

/** The announcement a notice may carry (StateAnnouncement, checked: it comes from another node). */
const stateAnnouncementSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("tool.toggled"), data: eventDataSchemas["tool.toggled"] }),
  z.object({ type: z.literal("operator.action"), data: eventDataSchemas["operator.action"] }),
]);

const noticeSchema = z.object({ kind: stateKindSchema, announce: stateAnnouncementSchema.optional() });

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
  logger: Logger;
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
