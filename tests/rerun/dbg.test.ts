import { it } from "vitest";
import { rerun } from "../../server/rerun/run";
import { planOf, recordSession, scriptOf } from "../../tests/support/recorded-session";
it("dbg", async () => {
  const r = await recordSession({ lines: scriptOf("examples/group-chat.jsonl") });
  const rec = await r.recorded();
  const res = await rerun(rec, r.world(), planOf());
  const fmt = (e: any) => `${e.ts - 1767268800000} ${e.type} ${e.type === "message.pending" || e.type === "message.ingested" ? e.data.messageId : e.type === "stage.status" ? e.data.stage : ""}`;
  console.log("ORIG\n" + rec.events.map(fmt).join("\n"));
  console.log("RERUN\n" + res.events.map(fmt).join("\n"));
  console.log(rec.messages.map((m) => `${m.messageId} ${m.ts - 1767268800000} ${m.direction}`).join("\n"));
  await r.close();
});
