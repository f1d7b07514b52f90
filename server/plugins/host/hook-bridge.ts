// Plugin hook handlers in the engine's HookRegistry (docs/engine-rules.md#hooks): each one an RPC to the Runner
// with a timeout. The registry skips a handler that fails or is slow, so a plugin never breaks a request.
import type { HookDeclaration } from "../../../lib/plugins/components";
import { hookResultSchema, ipcMethods } from "../../../lib/plugins/protocol";
import type { HookPayloads, HookRegistry } from "../../engine";
import { IpcError } from "../ipc/errors";
import type { RunnerCaller } from "./tool-provider";

export const DEFAULT_PLUGIN_HOOK_TIMEOUT_MS = 6_000;
/** The registry's own limit sits a little above the RPC's, so the RPC's clearer E_TIMEOUT is what gets logged. */
const REGISTRY_MARGIN_MS = 500;

export class PluginHookBridge {
  private unregisters: (() => void)[] = [];

  constructor(
    private readonly hooks: HookRegistry,
    private readonly runner: RunnerCaller,
    private readonly timeoutMs = DEFAULT_PLUGIN_HOOK_TIMEOUT_MS,
  ) {}

  /** Registers the handlers of the plugins now loaded, replacing those of an earlier Runner. */
  sync(plugins: readonly { pluginId: string; hooks: readonly HookDeclaration[] }[]): void {
    this.clear();
    for (const { pluginId, hooks } of plugins) {
      for (const hook of hooks) {
        const timeoutMs = hook.timeoutMs ?? this.timeoutMs;
        this.unregisters.push(
          this.hooks.register(
            hook.point,
            `plugin:${pluginId}:${hook.method}`,
            (payload, signal) => this.call(pluginId, hook, payload, timeoutMs, signal),
            {
              timeoutMs: timeoutMs + REGISTRY_MARGIN_MS,
            },
          ),
        );
      }
    }
  }

  clear(): void {
    for (const unregister of this.unregisters) unregister();
    this.unregisters = [];
  }

  private async call<P extends HookDeclaration["point"]>(
    pluginId: string,
    hook: HookDeclaration,
    payload: Readonly<HookPayloads[P]>,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<Partial<HookPayloads[P]> | undefined> {
    const answer = await this.runner.request(
      ipcMethods.invokeHook,
      pluginId,
      { method: hook.method, point: hook.point, payload },
      { timeoutMs, signal },
    );
    const parsed = hookResultSchema.safeParse(answer);
    if (!parsed.success) throw new IpcError("E_BAD_PAYLOAD", "the runner's hook answer is malformed");
    if (!parsed.data.patch) return undefined;
    // A plugin may rewrite a request, not move it to another session.
    const { sessionId: _kept, ...patch } = parsed.data.patch;
    return patch as Partial<HookPayloads[P]>; // the registry merges only fields whose kind matches the payload's
  }
}
