// Runs in the browser before the dashboard's own modules (a Next convention file). Zod compiles object
// parsers with `new Function` unless jitless, and even its guarded probe for that is reported as a CSP
// violation: the page policy's script-src has no 'unsafe-eval' (server/http/security-headers.ts).
import { z } from "zod";

z.config({ jitless: true });
