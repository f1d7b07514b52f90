// Where the e2e server lives; the same values in the runner, the workers and the launcher.
import { createHash } from "node:crypto";
import os from "node:os";
import path from "node:path";

/** Port per checkout (two clones testing at once must not collide); E2E_PORT overrides. */
function portForCheckout(): number {
  const digest = createHash("sha256").update(process.cwd()).digest();
  return 3_200 + (digest.readUInt16BE(0) % 700);
}

export const E2E_PORT = Number(process.env.E2E_PORT ?? portForCheckout());
export const E2E_BASE = `http://127.0.0.1:${E2E_PORT}`;
export const E2E_TOKEN = "e2e-operator-token-0123456789";
/** The OneBot reverse-WebSocket token the e2e server accepts (platforms.onebot.accessToken). */
export const E2E_ONEBOT_TOKEN = "e2e-onebot-token-0123456789";
export const E2E_DIR = path.join(os.tmpdir(), `maisaka-e2e-${E2E_PORT}`);
/** The recorded session of 10,000+ events seeded before the server starts. */
export const BIG_SESSION = "e2e-big";
export const BIG_SESSION_EVENTS = 10_032;
