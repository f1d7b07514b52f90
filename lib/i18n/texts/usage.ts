// The /usage page: what lib/i18n/messages.ts does not hold yet (finer buckets, the charts' time legend,
// why the cost chart is empty).
import { catalog } from "../message";

export const usageTexts = catalog(
  {
    "usage.bucket.5m": "5 minutes",
    "usage.bucket.15m": "15 minutes",
    "usage.bucketPick": "Chart by",
    "chart.time": "Time",
    "chart.latest": "latest",
    "usage.costHint.noCalls": "No model calls in this range.",
    "usage.costHint.noPrices": {
      one: "No cost: no model has a price. Prices go in the config's models.prices (USD per million tokens); {count} call is counted without one.",
      other:
        "No cost: no model has a price. Prices go in the config's models.prices (USD per million tokens); {count} calls are counted without one.",
    },
    "usage.costHint.unpriced": {
      one: "No cost: the {count} call in this range was of a model without a price ({models}). Add it to the config's models.prices.",
      other:
        "No cost: the {count} calls in this range were of models without a price ({models}). Add them to the config's models.prices.",
    },
  },
  {
    "usage.bucket.5m": "5 分钟",
    "usage.bucket.15m": "15 分钟",
    "usage.bucketPick": "图表粒度",
    "chart.time": "时间",
    "chart.latest": "最近",
    "usage.costHint.noCalls": "此时间范围内没有模型调用。",
    "usage.costHint.noPrices":
      "没有费用：没有为任何模型配置价格。价格写在配置的 models.prices 中（美元/百万 token）；{count} 次调用未计价。",
    "usage.costHint.unpriced":
      "没有费用：此范围内的 {count} 次调用所用模型都没有价格（{models}）。请把它们加入配置的 models.prices。",
  },
);
