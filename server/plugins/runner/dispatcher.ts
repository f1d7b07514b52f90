// Answers the Host's requests inside the Runner: health pings and calls into the loaded plugins.
import type { z } from "zod";
import {
  hookResultSchema,
  invokeHookSchema,
  invokeToolSchema,
  ipcMethods,
  type Envelope,
} from "../../../lib/plugins/protocol";
import { IpcError } from "../ipc/errors";
import { parsePayload } from "../ipc/payload";
import { toJsonSafe } from "./json-safe";
import type { LoadedPlugin } from "./loader";

export class RunnerDispatcher {
  private readonly plugins = new Map<string, LoadedPlugin>();
  private readonly startedAt = Date.now();

  constructor(plugins: readonly LoadedPlugin[]) {
    for (const plugin of plugins) this.plugins.set(plugin.summary.id, plugin);
  }

  async handle(request: Envelope, signal: AbortSignal): Promise<unknown> {
    switch (request.method) {
      case ipcMethods.ping:
        return { pid: process.pid, uptimeMs: Date.now() - this.startedAt };
      case ipcMethods.invokeTool:
      case ipcMethods.invokeAction:
        return this.invokeTool(request, signal);
      case ipcMethods.invokeHook:
        return this.invokeHook(request, signal);
      default:
        throw new IpcError("E_METHOD_NOT_FOUND", `unknown method ${request.method}`);
    }
  }

  private async invokeTool(request: Envelope, signal: AbortSignal): Promise<unknown> {
    const { component, args, context } = parsePayload(invokeToolSchema, request);
    const plugin = this.plugin(request.pluginId);
    const tool = plugin.tools.find((t) => t.name === component);
    if (!tool) throw new IpcError("E_COMPONENT_NOT_FOUND", `plugin ${plugin.summary.id} has no tool ${component}`);
    const result = await this.call(plugin, tool.method, [args, { ...context, signal }]);
    return { result: toJsonSafe(result) };
  }

  private async invokeHook(request: Envelope, signal: AbortSignal): Promise<z.infer<typeof hookResultSchema>> {
    const { method, point, payload } = parsePayload(invokeHookSchema, request);
    const plugin = this.plugin(request.pluginId);
    if (!plugin.hooks.some((h) => h.method === method && h.point === point)) {
      throw new IpcError("E_COMPONENT_NOT_FOUND", `plugin ${plugin.summary.id} has no ${point} handler ${method}`);
    }
    const patch = toJsonSafe(await this.call(plugin, method, [payload, { signal }]));
    if (patch === null) return { patch: null };
    if (typeof patch !== "object" || Array.isArray(patch)) {
      throw new IpcError("E_BAD_PAYLOAD", `hook handler ${method} must return an object of changed fields or nothing`);
    }
    return { patch: patch as Record<string, unknown> }; // a non-array object after the JSON round trip
  }

  private plugin(pluginId: string): LoadedPlugin {
    const plugin = this.plugins.get(pluginId);
    if (!plugin) throw new IpcError("E_PLUGIN_NOT_FOUND", `plugin ${pluginId || "(none)"} is not loaded`);
    return plugin;
  }

  private async call(plugin: LoadedPlugin, method: string, args: unknown[]): Promise<unknown> {
    const fn: unknown = Reflect.get(plugin.instance, method);
    if (typeof fn !== "function")
      throw new IpcError("E_COMPONENT_NOT_FOUND", `plugin ${plugin.summary.id} has no method ${method}`);
    return Reflect.apply(fn, plugin.instance, args);
  }
}
