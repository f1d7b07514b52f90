// replay_open_100k and replay_scrub_100k: a 100,000-event session (the recorded group chat repeated,
// ~650 B per event) opened in the replay page in Chromium through the real server.
// Open: navigation start → the first animation frame with the scrubber and the first rows on screen
// (median of cold loads). Baseline: a bare page on the same server fetching the same first ledger
// page the replay asks for and painting one row per event, navigation start → that frame.
// Scrub: once the whole recording is loaded, the scrubber dragged across the session and back, one
// pointermove per animation frame; the value is the longest frame (target: none over 32 ms, i.e. no
// dropped pair of frames at 60 frames/s). Baseline: a bare page redrawing as many rows as the replay
// shows from the same number of events, a new playhead each frame.
import type { Page } from "@playwright/test";
import { openDatabase } from "../../server/db";
import type { MeasureFn } from "../measure";
import {
  ensureBuild,
  firstFrameWith,
  launchChromium,
  loggedInPage,
  recordedEvents,
  startDashboardServer,
} from "../support/browser";
import { sessionRecord } from "../support/engine";
import { median, percentile } from "../support/stats";
import { tempDatabaseUrl, withTempDir } from "../support/temp-db";

const SESSION = "replay-bench";
const EVENTS = 100_000;
/** What the replay page asks for first (components/replay/SessionReplay.tsx REPLAY_HEAD). */
const FIRST_PAGE = 500;

async function seed(url: string): Promise<void> {
  const database = await openDatabase(url, { ledger: { synchronous: "normal" } });
  try {
    await database.stores.sessions.upsert({ ...sessionRecord(SESSION), name: "Replay bench (100k events)" });
    for (let seq = 1; seq <= EVENTS; seq += 5_000)
      await database.ledger.append(
        recordedEvents(SESSION, Math.min(5_000, EVENTS - seq + 1), seq, Date.now() - 86_400_000 + seq * 50),
      );
  } finally {
    await database.close();
  }
}

/** The player is usable: the replay starts before the first event, so its lists are still empty. */
const OPENED = '[data-testid="replay"] [data-testid="scrubber"]';

function bareOpenPage(sessionId: string): string {
  return `<!doctype html><html><body><div id="list"></div><script>
    fetch("/api/sessions/${sessionId}/events?afterSeq=0&limit=${FIRST_PAGE}", { credentials: "include" })
      .then((r) => r.json())
      .then((page) => {
        const list = document.getElementById("list");
        for (const e of page.events) {
          const row = document.createElement("div");
          row.className = "row";
          row.textContent = "#" + e.seq + " " + e.type + " " + JSON.stringify(e.data).slice(0, 160);
          list.append(row);
        }
      });
  </script></body></html>`;
}

/** Frame times (rAF deltas) while `step(i)` runs once per frame for `steps` frames. */
function framesWhile(page: Page, steps: number, mode: "app" | "bare", rows: number): Promise<number[]> {
  return page.evaluate(
    async ({ steps, mode, rows }) => {
      const frames: number[] = [];
      const nextFrame = () => new Promise<number>((r) => requestAnimationFrame(() => r(performance.now())));
      if (mode === "app") {
        const bar = document.querySelector('[data-testid="scrubber"]') as HTMLElement;
        const rect = bar.getBoundingClientRect();
        const at = (i: number) => {
          // There and back: 0 → 1 → 0 of the bar.
          const f = i <= steps / 2 ? (2 * i) / steps : 2 - (2 * i) / steps;
          return { clientX: rect.left + rect.width * f, clientY: rect.top + 5, pointerId: 1, bubbles: true };
        };
        let last = await nextFrame();
        bar.dispatchEvent(new PointerEvent("pointerdown", at(0)));
        for (let i = 1; i <= steps; i++) {
          bar.dispatchEvent(new PointerEvent("pointermove", at(i)));
          const now = await nextFrame();
          frames.push(now - last);
          last = now;
        }
        bar.dispatchEvent(new PointerEvent("pointerup", at(steps)));
      } else {
        // The bare side: the same number of rows redrawn from a moving index into as many events.
        const events = (window as unknown as { __events: { seq: number; type: string; data: unknown }[] }).__events;
        const list = document.getElementById("list") as HTMLElement;
        let last = await nextFrame();
        for (let i = 1; i <= steps; i++) {
          const f = i <= steps / 2 ? (2 * i) / steps : 2 - (2 * i) / steps;
          const from = Math.max(0, Math.round(f * events.length) - rows);
          const fragment = document.createDocumentFragment();
          for (const e of events.slice(from, from + rows)) {
            const row = document.createElement("div");
            row.textContent = "#" + e.seq + " " + e.type + " " + JSON.stringify(e.data).slice(0, 160);
            fragment.append(row);
          }
          list.replaceChildren(fragment);
          const now = await nextFrame();
          frames.push(now - last);
          last = now;
        }
      }
      return frames;
    },
    { steps, mode, rows },
  );
}

function frameNote(frames: number[]): string {
  const total = frames.reduce((a, b) => a + b, 0);
  return `${(frames.length / (total / 1000)).toFixed(1)} frames/s, p95 ${percentile(frames, 0.95).toFixed(1)} / max ${Math.max(...frames).toFixed(1)} ms, ${frames.filter((f) => f > 32).length} over 32 ms`;
}

async function withReplayServer<T>(fn: (page: Page, build: string) => Promise<T>): Promise<T> {
  return withTempDir(async (dir) => {
    const build = ensureBuild();
    const url = await tempDatabaseUrl(dir);
    await seed(url);
    const app = await startDashboardServer(url);
    const browser = await launchChromium();
    try {
      const page = await loggedInPage(browser, app.url);
      return await fn(page, build);
    } finally {
      await browser.close();
      await app.close("bench finished");
    }
  });
}

export const open: MeasureFn = ({ quick }) =>
  withReplayServer(async (page, build) => {
    await page.route("**/__bench/open**", (route) =>
      route.fulfill({ contentType: "text/html", body: bareOpenPage(SESSION) }),
    );
    // One load of each, not counted: the server's first render, caches.
    await page.goto(`/sessions/${SESSION}/replay`);
    await firstFrameWith(page, OPENED);
    await page.goto("/__bench/open");
    await firstFrameWith(page, "#list .row");
    const app: number[] = [];
    const bare: number[] = [];
    for (let run = 0; run < (quick ? 3 : 7); run++) {
      await page.goto("about:blank");
      await page.goto(`/sessions/${SESSION}/replay`);
      app.push(await firstFrameWith(page, OPENED));
      await page.goto("about:blank");
      await page.goto("/__bench/open");
      bare.push(await firstFrameWith(page, "#list .row"));
    }
    return {
      value: median(app),
      baseline: median(bare),
      note: `${EVENTS.toLocaleString("en-US")} events, navigation → first frame with the player (scrubber) on screen, median of ${app.length} cold loads (${app.map((t) => t.toFixed(0)).join(", ")} ms); bare page fetching and painting the first ${FIRST_PAGE} events: ${bare.map((t) => t.toFixed(0)).join(", ")} ms; served from ${build}`,
    };
  });

export const scrub: MeasureFn = ({ quick }) =>
  withReplayServer(async (page, build) => {
    const loadStarted = Date.now();
    await page.goto(`/sessions/${SESSION}/replay`);
    await page.waitForFunction(
      (n) => document.querySelector('[data-testid="replay"]')?.getAttribute("data-total") === String(n),
      EVENTS,
      { timeout: 180_000, polling: 500 },
    );
    const loadedMs = Date.now() - loadStarted;
    const steps = quick ? 120 : 300;
    // The rows the replay shows with the whole session applied: the bare side redraws as many.
    await page.getByTestId("scrubber").press("End");
    await page.waitForTimeout(500);
    const rows = await page.locator('[data-testid="replay"] .vlist-row').count();
    await framesWhile(page, 30, "app", 0); // warm-up
    const app = await framesWhile(page, steps, "app", 0);
    // The bare side: the same events in the page's memory (fetched page by page, not timed).
    await page.route("**/__bench/scrub**", (route) =>
      route.fulfill({ contentType: "text/html", body: '<!doctype html><div id="list"></div>' }),
    );
    await page.goto("/__bench/scrub");
    await page.evaluate(
      async ({ sessionId, total }) => {
        const all: unknown[] = [];
        for (let after = 0; after < total; after += 5_000) {
          const res = await fetch(`/api/sessions/${sessionId}/events?afterSeq=${after}&limit=5000`);
          all.push(...((await res.json()) as { events: unknown[] }).events);
        }
        (window as unknown as { __events: unknown[] }).__events = all;
      },
      { sessionId: SESSION, total: EVENTS },
    );
    await framesWhile(page, 30, "bare", rows);
    const bare = await framesWhile(page, steps, "bare", rows);
    return {
      value: Math.max(...app),
      baseline: Math.max(...bare),
      note: `${EVENTS.toLocaleString("en-US")} events (all loaded after ${(loadedMs / 1000).toFixed(1)} s), scrubber dragged across and back in ${steps} moves, one per frame: replay ${frameNote(app)}; bare page redrawing ${rows} rows per frame: ${frameNote(bare)}; served from ${build}`,
    };
  });
