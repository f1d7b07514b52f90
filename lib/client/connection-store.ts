// Connection health shown by the offline banner: the worst state of the live subscriptions that
// are open, plus whether the last HTTP call reached the server. Framework-free; React reads it
// through useSyncExternalStore.
import type { ConnectionState } from "./monitor-socket";

export interface ConnectionSnapshot {
  /** "idle" when no live subscription is open. */
  socket: ConnectionState | "idle";
  detail: string;
  httpReachable: boolean;
  /** When the connection was last lost (ms epoch), null while connected. */
  lostAt: number | null;
}

type Listener = () => void;

const RANK: Record<ConnectionState, number> = { live: 0, connecting: 1, offline: 2, unauthorized: 3 };

export function createConnectionStore(now: () => number = Date.now) {
  const subs = new Map<number, { state: ConnectionState; detail: string }>();
  const listeners = new Set<Listener>();
  let nextId = 1;
  let httpReachable = true;
  let snapshot: ConnectionSnapshot = { socket: "idle", detail: "", httpReachable: true, lostAt: null };

  function recompute(): void {
    let worst: { state: ConnectionState; detail: string } | null = null;
    for (const s of subs.values()) if (!worst || RANK[s.state] > RANK[worst.state]) worst = s;
    const socket = worst?.state ?? "idle";
    const down = socket === "offline" || !httpReachable;
    const next: ConnectionSnapshot = {
      socket,
      detail: worst?.detail ?? "",
      httpReachable,
      lostAt: down ? (snapshot.lostAt ?? now()) : null,
    };
    if (
      next.socket === snapshot.socket &&
      next.detail === snapshot.detail &&
      next.httpReachable === snapshot.httpReachable &&
      next.lostAt === snapshot.lostAt
    )
      return;
    snapshot = next;
    for (const l of listeners) l();
  }

  return {
    getSnapshot: () => snapshot,
    subscribe: (listener: Listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    /** Registers one live subscription; returns its reporter and a release function. */
    register(): { report: (state: ConnectionState, detail?: string) => void; release: () => void } {
      const id = nextId++;
      subs.set(id, { state: "connecting", detail: "" });
      recompute();
      return {
        report(state, detail = "") {
          if (!subs.has(id)) return;
          subs.set(id, { state, detail });
          recompute();
        },
        release() {
          subs.delete(id);
          recompute();
        },
      };
    },
    setHttpReachable(reachable: boolean) {
      httpReachable = reachable;
      recompute();
    },
  };
}

/** The page's one store. */
export const connectionStore = createConnectionStore();
