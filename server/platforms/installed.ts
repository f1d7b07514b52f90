// The platforms this server can run: adding a platform is its room under server/platforms/<name>/ and
// one line here (docs/platforms.md, "Adding a platform"). The server makes an adapter of each whose
// config asks for one; their routes join the route table whether or not they run.
import { onebotPlatform, type OneBotOptions } from "./onebot/adapter";
import type { AdapterInit, PlatformAdapter, PlatformModule } from "./seam";

/** Per-platform options of the server's caller (tests and benchmarks), keyed by platform. */
export interface PlatformOptions {
  onebot?: OneBotOptions;
}

/** Each installed platform with its options' key. */
const INSTALLED = [{ module: onebotPlatform, options: (o: PlatformOptions) => o.onebot }] as const;

export const installedPlatforms: readonly Pick<
  PlatformModule<unknown>,
  "platform" | "label" | "routes" | "ownsSessionId"
>[] = INSTALLED.map((entry) => entry.module);

/** The adapters the config asks for, in installation order. */
export function createAdapters(init: AdapterInit, options: PlatformOptions): PlatformAdapter[] {
  return INSTALLED.flatMap(({ module, options: of }) => module.create(init, of(options)) ?? []);
}
