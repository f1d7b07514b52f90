"use client";
import { useEffect } from "react";

/**
 * Chromium leaves a control that lies partly outside a table scrolling sideways (narrow screens) where
 * it is when the keyboard focuses it, its label and ring cut off at the box's edge: it is brought
 * wholly into view, scrolling only as far as needed.
 */
export function useRevealFocusInTables(): void {
  useEffect(() => {
    const reveal = (event: FocusEvent) => {
      const target = event.target;
      if (target instanceof HTMLElement && target.closest(".table-scroll, table.table"))
        target.scrollIntoView({ block: "nearest", inline: "nearest" });
    };
    document.addEventListener("focusin", reveal);
    return () => document.removeEventListener("focusin", reveal);
  }, []);
}
