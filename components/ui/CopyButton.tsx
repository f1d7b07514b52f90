"use client";
import { useState } from "react";

/** Copies text; says so for a moment. Falls back to a hidden textarea where the Clipboard API is absent (http). */
export function CopyButton({ text, label = "Copy JSON" }: { text: () => string; label?: string }) {
  const [done, setDone] = useState<"ok" | "fail" | null>(null);
  const copy = async () => {
    const value = text();
    try {
      if (navigator.clipboard && window.isSecureContext) await navigator.clipboard.writeText(value);
      else legacyCopy(value);
      setDone("ok");
    } catch {
      setDone("fail");
    }
    setTimeout(() => setDone(null), 1_500);
  };
  return (
    <button type="button" className="btn btn-sm" onClick={() => void copy()}>
      {done === "ok" ? "Copied" : done === "fail" ? "Copy failed" : label}
    </button>
  );
}

function legacyCopy(value: string): void {
  const area = document.createElement("textarea");
  area.value = value;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.appendChild(area);
  area.select();
  const ok = document.execCommand("copy");
  area.remove();
  if (!ok) throw new Error("copy refused");
}
