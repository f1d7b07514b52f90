"use client";
// `?cycle=<cycleId>` (a search hit's link to the live view): once that cycle is in the timeline, its
// card is selected and scrolled to, and following stops so it stays in view. Read once from the address.
import { useEffect, useRef } from "react";
import type { TimelineItem } from "../../lib/client/timeline";

export function useLinkedCycle(items: readonly TimelineItem[], open: (key: string, index: number) => void): void {
  const wanted = useRef<string | null | undefined>(undefined);
  const latest = useRef(open);
  latest.current = open;
  useEffect(() => {
    wanted.current ??= new URLSearchParams(window.location.search).get("cycle");
    if (!wanted.current) return;
    const index = items.findIndex((i) => i.kind === "cycle" && i.cycle.cycleId === wanted.current);
    if (index < 0) return;
    const key = items[index].key;
    wanted.current = null;
    // After the list has laid out this render (it pins its end while following).
    requestAnimationFrame(() => latest.current(key, index));
  }, [items]);
}
