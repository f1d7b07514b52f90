"use client";
// The dashboard's one chart: a time series as lines or (stacked) bars over uPlot, which draws on a
// canvas and stays fast with 100,000 points. Colours come from the theme's CSS variables, so the
// chart is redrawn when the theme changes; it takes its container's width; a click on a point names
// its x index (pages open the cycles behind a bar with it).
import { useEffect, useRef, useState } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { stackSeries } from "../../../lib/client/chart-stack";
import { formatDateTime } from "../../../lib/client/format";
import { useT } from "../../../lib/client/react/use-locale";

export type ChartColor = "accent" | "ok" | "warn" | "bad" | "info" | "sim" | "muted";

export interface ChartSeries {
  label: string;
  /** One value per x; null is a gap. */
  values: (number | null)[];
  color: ChartColor;
}

/** The chart is rebuilt when x, series or formatValue change identity: memoise them. */
interface Props {
  /** Unix seconds, ascending. */
  x: number[];
  series: ChartSeries[];
  kind?: "line" | "bars";
  /** Bars only: each x shows the series on top of one another. */
  stacked?: boolean;
  height?: number;
  /** What the chart shows, for screen readers (pages also give the numbers as text or a table). */
  label: string;
  formatValue?: (value: number) => string;
  onPick?: (index: number) => void;
  testId?: string;
}

/** Increments when the page's theme changes (the data-theme attribute or the system scheme). */
function useThemeVersion(): number {
  const [version, setVersion] = useState(0);
  useEffect(() => {
    const bump = () => setVersion((v) => v + 1);
    const observer = new MutationObserver(bump);
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
    const media = window.matchMedia("(prefers-color-scheme: dark)");
    media.addEventListener("change", bump);
    return () => {
      observer.disconnect();
      media.removeEventListener("change", bump);
    };
  }, []);
  return version;
}

const plainNumber = (value: number): string => String(value);

/** A bucket's start (Unix seconds) in local time, "12-01 14:15". */
const formatBucket = (seconds: number): string => formatDateTime(seconds * 1000).slice(5, 16);

function cssVar(el: Element, name: string): string {
  return getComputedStyle(el).getPropertyValue(`--${name}`).trim() || "#888";
}

export function TimeChart({
  x,
  series,
  kind = "line",
  stacked = false,
  height = 180,
  label,
  formatValue = plainNumber,
  onPick,
  testId,
}: Props) {
  const box = useRef<HTMLDivElement>(null);
  const pick = useRef(onPick);
  const theme = useThemeVersion();
  const t = useT();
  const timeLabel = t("chart.time");
  const latestLabel = t("chart.latest");

  useEffect(() => {
    pick.current = onPick;
  }, [onPick]);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const raw = series.map((s) => s.values);
    const drawn = kind === "bars" && stacked ? stackSeries(raw) : raw;
    // Stacked: the running totals are drawn top of the stack first, so each lower part covers it.
    const order = kind === "bars" && stacked ? series.map((_, i) => series.length - 1 - i) : series.map((_, i) => i);
    const text = cssVar(el, "muted");
    const grid = cssVar(el, "border");
    const bars = uPlot.paths.bars?.({ size: [0.7, 48] });
    // Away from the chart the legend shows the latest bucket (not a row of dashes).
    const last = x.length - 1;
    const shown = (idx: number | null | undefined) => idx ?? last;
    const opts: uPlot.Options = {
      width: Math.max(el.clientWidth, 120),
      height,
      legend: { live: true },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true } },
      axes: [
        { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } },
        {
          stroke: text,
          grid: { stroke: grid, width: 1 },
          ticks: { stroke: grid },
          values: (_u, ticks) => ticks.map(formatValue),
          size: 56,
        },
      ],
      series: [
        {
          label: timeLabel,
          value: (_u: uPlot, _v: number | null, _s: number, idx: number | null) =>
            last < 0
              ? "–"
              : `${formatBucket(x[shown(idx)])}${idx === null || idx === undefined ? ` (${latestLabel})` : ""}`,
        },
        ...order.map((i) => {
          const s = series[i];
          const colour = cssVar(el, s.color);
          return {
            label: s.label,
            stroke: colour,
            fill: kind === "bars" ? colour : undefined,
            width: kind === "bars" ? 0 : 1.5,
            points: { show: false },
            ...(kind === "bars" && bars ? { paths: bars } : {}),
            // The legend shows the series' own value, not the running total it is drawn at.
            value: (_u: uPlot, _v: number | null, _s: number, idx: number | null) => {
              const v = last < 0 ? null : s.values[shown(idx)];
              return v === null || v === undefined ? "–" : formatValue(v);
            },
          };
        }),
      ],
      hooks: {
        ready: [
          (u) =>
            u.over.addEventListener("click", () => {
              const idx = u.cursor.idx;
              if (idx !== null && idx !== undefined) pick.current?.(idx);
            }),
        ],
      },
    };
    const chart = new uPlot(opts, [x, ...order.map((i) => drawn[i])], el);
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(el.clientWidth, 120), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [x, series, kind, stacked, height, formatValue, theme, timeLabel, latestLabel]);

  return <div ref={box} className="time-chart" role="img" aria-label={label} data-testid={testId} />;
}
