"use client";
// Last 24 h / 7 d / 30 d, or a custom range from two local date-times (applied when both are valid).
import { useState } from "react";
import { useT } from "../../lib/client/react/use-locale";
import {
  customRange,
  localInputValue,
  RANGE_PRESETS,
  type RangePreset,
  type UsageRange,
} from "../../lib/client/usage-range";

interface Props {
  preset: RangePreset;
  range: UsageRange;
  onPreset: (preset: Exclude<RangePreset, "custom">) => void;
  onCustom: (range: UsageRange) => void;
}

export function RangePicker({ preset, range, onPreset, onCustom }: Props) {
  const t = useT();
  const [from, setFrom] = useState(() => localInputValue(range.from));
  const [to, setTo] = useState(() => localInputValue(range.to));
  const custom = customRange(from, to);
  return (
    <div className="usage-range" data-testid="usage-range">
      <div className="seg" role="group" aria-label={t("usage.range")}>
        {RANGE_PRESETS.map((p) => (
          <button
            key={p}
            className={preset === p ? "active" : ""}
            aria-pressed={preset === p}
            onClick={() => onPreset(p)}
          >
            {t(`usage.range.${p}`)}
          </button>
        ))}
        <button
          className={preset === "custom" ? "active" : ""}
          aria-pressed={preset === "custom"}
          onClick={() => {
            setFrom(localInputValue(range.from));
            setTo(localInputValue(range.to));
            onCustom(range);
          }}
        >
          {t("usage.range.custom")}
        </button>
      </div>
      {preset === "custom" && (
        <form
          className="usage-custom"
          onSubmit={(e) => {
            e.preventDefault();
            if (custom) onCustom(custom);
          }}
        >
          <input
            className="input input-sm"
            type="datetime-local"
            aria-label={t("usage.range.from")}
            value={from}
            onChange={(e) => setFrom(e.target.value)}
          />
          <span className="muted">–</span>
          <input
            className="input input-sm"
            type="datetime-local"
            aria-label={t("usage.range.to")}
            value={to}
            onChange={(e) => setTo(e.target.value)}
          />
          <button className="btn btn-sm" type="submit" disabled={!custom}>
            {t("usage.range.apply")}
          </button>
        </form>
      )}
    </div>
  );
}
