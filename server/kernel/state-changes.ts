// Change notifications: cluster-wide operator state (tool toggles, live settings, accounts and logins,
// the platform audience, MCP servers, plugins) is rows in the shared database, and each node keeps a
// copy in memory. The service that saved a change reports it here; a cluster node connects this port
// to its messenger (server/cluster/shared-state.ts) so the other nodes reload that part. In a single
// process nothing is connected and a report is a no-op.
import type { EventData } from "../../lib/events/schemas";

/** The parts of the shared state a notice can name. */
export const STATE_KINDS = ["toggles", "settings", "accounts", "logins", "audience", "mcp", "plugins"] as const;
export type StateKind = (typeof STATE_KINDS)[number];

/**
 * What the change told the sessions running where it was made (tool.toggled, operator.action): the
 * other nodes tell theirs the same.
 */
export type StateAnnouncement =
  | { type: "tool.toggled"; data: EventData<"tool.toggled"> }
  | { type: "operator.action"; data: EventData<"operator.action"> };

/** Reloads one part of the state from the database (the node's copy replaced by the rows). */
export type StateReloaders = Partial<Record<StateKind, () => Promise<void>>>;

type Publish = (kind: StateKind, announce?: StateAnnouncement) => Promise<void>;

/** Where the services report a change they saved. Created before them by the composition. */
export class StateChanges {
  private publish: Publish | null = null;

  /**
   * The change is saved and applied here: the other nodes are told to reload it, and to tell their
   * running sessions `announce` once they did. Never throws.
   */
  changed(kind: StateKind, announce?: StateAnnouncement): void {
    void this.publish?.(kind, announce);
  }

  /** @internal The cluster's hook (attachSharedState): null disconnects. */
  connect(publish: Publish | null): void {
    this.publish = publish;
  }
}
