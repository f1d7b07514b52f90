"use client";
import { useSyncExternalStore } from "react";
import { connectionStore, type ConnectionSnapshot } from "../connection-store";

export function useConnection(): ConnectionSnapshot {
  return useSyncExternalStore(connectionStore.subscribe, connectionStore.getSnapshot, connectionStore.getSnapshot);
}
