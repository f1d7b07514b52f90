"use client";
// Renders change controls only for accounts that may change things (not viewers). The API refuses a
// viewer anyway; this keeps the page from offering what would answer 403.
import type { ReactNode } from "react";
import { useCanChange } from "../../lib/client/react/use-account";

export function ChangeOnly({ children }: { children: ReactNode }) {
  return useCanChange() ? <>{children}</> : null;
}
