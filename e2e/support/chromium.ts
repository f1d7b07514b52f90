// How the e2e suite and the browser benchmarks launch Debian's Chromium (stack.md: Playwright's own
// browser download is not reachable here).
export const chromiumLaunchOptions = {
  executablePath: "/usr/bin/chromium",
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
};
