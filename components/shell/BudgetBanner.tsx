"use client";
// Shown on every dashboard page while today's model cost is over a daily budget (config
// models.budgets, UTC day). Reporting only: the bot keeps running, which the banner says.
import Link from "next/link";
import { formatUsd } from "../../lib/client/usage";
import { useBudget } from "../../lib/client/react/use-budget";
import { useT } from "../../lib/client/react/use-locale";

export function BudgetBanner() {
  const t = useT();
  const budget = useBudget();
  const over = budget.data?.budgets.filter((b) => b.over) ?? [];
  if (!over.length) return null;
  return (
    <div className="budget-banner" role="status" data-testid="budget-banner">
      <strong>{t("budget.over")}</strong>{" "}
      {over
        .map((b) =>
          t(b.scope === "overall" ? "budget.overall" : "budget.endpoint", {
            endpoint: b.endpoint ?? "",
            spent: formatUsd(b.spentUsd),
            limit: formatUsd(b.limitUsd),
          }),
        )
        .join(" · ")}
      . {t("budget.keepsRunning", { day: budget.data?.day ?? "" })} <Link href="/usage">{t("budget.open")}</Link>
    </div>
  );
}
