import type { ReactNode } from "react";

export type Tone = "neutral" | "ok" | "warn" | "bad" | "info" | "accent" | "muted";

export function Badge({
  tone = "neutral",
  title,
  children,
  dashed,
  testId,
}: {
  tone?: Tone;
  title?: string;
  children: ReactNode;
  dashed?: boolean;
  testId?: string;
}) {
  return (
    <span className={`badge badge-${tone}${dashed ? " badge-dashed" : ""}`} title={title} data-testid={testId}>
      {children}
    </span>
  );
}
