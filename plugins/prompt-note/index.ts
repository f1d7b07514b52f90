// Example hook plugin: every planner request gets one more line at the end of its system prompt,
// visible in "what the model saw" on the dashboard. The line comes from config
// (`plugins.config["prompt-note"].note`); an empty note turns the plugin into a no-op.
import { Hook, Plugin, type HookPayloads } from "../../server/plugins/sdk";

export default class PromptNotePlugin extends Plugin {
  @Hook("maisaka.planner.before_request")
  appendNote(payload: HookPayloads["maisaka.planner.before_request"]) {
    const note = typeof this.ctx.config.note === "string" ? this.ctx.config.note.trim() : "";
    const [system, ...rest] = payload.messages;
    if (!note || system?.role !== "system") return;
    return { messages: [{ ...system, content: `${system.content}\n\n${note}` }, ...rest] };
  }
}
