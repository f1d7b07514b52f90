"use client";
// Keyboard navigation through cycle cards: j/k next/previous, o opens "what the model saw", G or
// End resumes following. Keys typed into inputs are left alone.
import { useEffect, useRef } from "react";
import { cycleItemIndices, type TimelineItem } from "../../lib/client/timeline";

interface Options {
  items: readonly TimelineItem[];
  selected: string | null;
  onSelect: (key: string, itemIndex: number) => void;
  onToggle: (key: string) => void;
  onEnd?: () => void;
}

function typingInto(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName));
}

export function useCycleKeys(opts: Options): void {
  const ref = useRef(opts);
  ref.current = opts;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.metaKey || e.ctrlKey || e.altKey || typingInto(e.target)) return;
      const { items, selected, onSelect, onToggle, onEnd } = ref.current;
      if (e.key === "j" || e.key === "k") {
        // Computed on the key press, not on every streamed render.
        const cycleIndices = cycleItemIndices(items);
        if (cycleIndices.length === 0) return;
        const current = cycleIndices.findIndex((i) => items[i]?.key === selected);
        const pos =
          current < 0
            ? e.key === "j"
              ? 0
              : cycleIndices.length - 1
            : Math.min(Math.max(0, current + (e.key === "j" ? 1 : -1)), cycleIndices.length - 1);
        const index = cycleIndices[pos];
        e.preventDefault();
        onSelect(items[index].key, index);
      } else if (e.key === "o" && selected) {
        e.preventDefault();
        onToggle(selected);
      } else if ((e.key === "G" || e.key === "End") && onEnd) {
        e.preventDefault();
        onEnd();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
}
