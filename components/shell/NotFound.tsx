"use client";
// Any path the app does not know: the app's own frame and theme, and the way back.
import Link from "next/link";
import { useT } from "../../lib/client/react/use-locale";
import { EmptyState } from "../ui/States";

export function NotFound() {
  const t = useT();
  return (
    <div className="page" data-testid="not-found">
      <EmptyState
        title={t("notFound.title")}
        action={
          <Link href="/" className="btn btn-primary">
            {t("notFound.home")}
          </Link>
        }
      >
        {t("notFound.body")}
      </EmptyState>
    </div>
  );
}
