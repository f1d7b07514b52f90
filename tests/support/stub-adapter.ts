// A platform adapter for tests of what sits around the seam (the registry, the outbound router): it
// owns the sessions `owns` says, sends through `outbound`, and fails every other call.
import type { OutboundSink } from "../../server/engine";
import type { PlatformAdapter } from "../../server/platforms/seam";

export function stubAdapter(opts: {
  platform: PlatformAdapter["platform"];
  owns: (sessionId: string) => boolean;
  outbound?: OutboundSink;
  close?: (reason: string) => Promise<void>;
}): PlatformAdapter {
  const unused = () => Promise.reject(new Error("not used by this test"));
  return {
    platform: opts.platform,
    outbound: opts.outbound ?? { deliver: unused },
    owns: opts.owns,
    attach: unused,
    serve: () => undefined,
    start: () => undefined,
    status: unused,
    connections: unused,
    inbound: unused,
    requests: unused,
    audience: () => null,
    close: opts.close ?? (() => Promise.resolve()),
  };
}
