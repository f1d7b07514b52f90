// A QQ group through OneBot v11, end to end in the browser: a raw WebSocket client plays the
// implementation (reverse connection with the token and X-Self-ID, a group message with a picture,
// answers to every action by echo). The platforms page lists the connection, the sessions list shows
// the group by name with a QQ badge, the live view shows the message and its picture (served over
// plain http from loopback, so the page CSP's img-src is exercised), a recall strikes it through, and
// "send as bot" ends as a send_group_msg frame at the implementation.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import WebSocket from "ws";
import { E2E_ONEBOT_TOKEN, E2E_PORT } from "./support/env";
import { auditPageSchema } from "../lib/api/accounts";
import { platformsResponseSchema } from "../lib/platforms/status";
import { expect, test } from "./support/fixtures";

const SELF_ID = "10001";
const GROUP_ID = "20002";
const GROUP_NAME = "E2E 测试群";
const SESSION_ID = `qq:${SELF_ID}:group:${GROUP_ID}`;
/** A 1×1 PNG. */
const PIXEL = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

interface ActionFrame {
  action: string;
  params: Record<string, unknown>;
  echo?: unknown;
}

/** The implementation's side of one reverse connection: answers actions, records them. */
class FakeImplementation {
  readonly actions: ActionFrame[] = [];
  private constructor(private readonly ws: WebSocket) {
    ws.on("message", (raw: Buffer) => {
      let frame: ActionFrame;
      try {
        frame = JSON.parse(raw.toString("utf8")) as ActionFrame;
      } catch {
        return;
      }
      if (typeof frame.action !== "string") return;
      this.actions.push(frame);
      const data = answer(frame);
      ws.send(
        JSON.stringify(
          data === undefined
            ? { status: "failed", retcode: 100, data: null, message: "not in this fake", echo: frame.echo }
            : { status: "ok", retcode: 0, data, echo: frame.echo },
        ),
      );
    });
  }

  static async connect(): Promise<FakeImplementation> {
    const ws = new WebSocket(`ws://127.0.0.1:${E2E_PORT}/onebot/v11/ws`, {
      headers: {
        authorization: `Bearer ${E2E_ONEBOT_TOKEN}`,
        "x-self-id": SELF_ID,
        "x-client-role": "Universal",
        "user-agent": "E2E-OneBot/1.0",
      },
    });
    const impl = new FakeImplementation(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
      ws.once("unexpected-response", (_req, res) => reject(new Error(`upgrade refused: HTTP ${res.statusCode}`)));
    });
    impl.event({ post_type: "meta_event", meta_event_type: "lifecycle", sub_type: "connect" });
    impl.event({
      post_type: "meta_event",
      meta_event_type: "heartbeat",
      interval: 5_000,
      status: { online: true, good: true },
    });
    return impl;
  }

  event(fields: Record<string, unknown>): void {
    this.ws.send(JSON.stringify({ time: Math.floor(Date.now() / 1_000), self_id: Number(SELF_ID), ...fields }));
  }

  close(): void {
    this.ws.close();
  }
}

function answer(frame: ActionFrame): unknown {
  const p = frame.params ?? {};
  switch (frame.action) {
    case "get_version_info":
      return { app_name: "E2E-OneBot", app_version: "1.2.3", protocol_version: "v11" };
    case "get_login_info":
      return { user_id: Number(SELF_ID), nickname: "E2E Bot" };
    case "get_group_info":
      return { group_id: Number(p.group_id), group_name: GROUP_NAME, member_count: 3, max_member_count: 200 };
    case "get_group_member_info":
      return { group_id: Number(p.group_id), user_id: Number(p.user_id), nickname: "Alice", card: "爱丽丝" };
    case "get_stranger_info":
      return { user_id: Number(p.user_id), nickname: "Alice" };
    case "send_group_msg":
    case "send_private_msg":
    case "send_msg":
      return { message_id: 9_000 + Math.floor(Math.random() * 1_000) };
    default:
      // get_msg and the rest: this fake keeps no history, as an implementation that lost it.
      return undefined;
  }
}

/** All text of an outgoing message, whether sent as a segment array or as a string. */
function messageText(message: unknown): string {
  if (typeof message === "string") return message;
  if (!Array.isArray(message)) return "";
  return message
    .map((s: { type?: string; data?: { text?: unknown } }) =>
      s.type === "text" && typeof s.data?.text === "string" ? s.data.text : "",
    )
    .join("");
}

let images: Server;
let imageUrl = "";
let impl: FakeImplementation | null = null;

test.beforeAll(async () => {
  images = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "image/png", "content-length": PIXEL.length });
    res.end(PIXEL);
  });
  await new Promise<void>((resolve) => images.listen(0, "127.0.0.1", resolve));
  imageUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}/gchatpic_new/cat.png`;
});

test.afterAll(async () => {
  impl?.close();
  await new Promise<void>((resolve) => images.close(() => resolve()));
});

test("a QQ group over a reverse connection: platforms page, sessions list, live view, send as bot", async ({
  page,
  api,
}) => {
  impl = await FakeImplementation.connect();

  // The platforms page lists the connection with what get_version_info and get_login_info said.
  await page.goto("/platforms");
  await expect(page.getByRole("heading", { name: "Platforms" })).toBeVisible();
  const row = page.getByTestId("platform-connection").and(page.locator(`[data-self-id="${SELF_ID}"]`));
  await expect(row).toHaveAttribute("data-state", "open");
  await expect(row).toContainText("reverse");
  await expect(row).toContainText("E2E-OneBot 1.2.3");
  await expect(row).toContainText("E2E Bot");

  // A group message with a picture.
  const text = "e2e 平台消息：周末一起去爬山吗";
  impl.event({
    post_type: "message",
    message_type: "group",
    sub_type: "normal",
    message_id: 501,
    group_id: Number(GROUP_ID),
    user_id: 30003,
    message: [
      { type: "text", data: { text } },
      { type: "image", data: { file: "cat.png", url: imageUrl } },
    ],
    raw_message: `${text}[CQ:image,file=cat.png]`,
    font: 0,
    sender: { user_id: 30003, nickname: "Alice", card: "爱丽丝", role: "member" },
  });

  // The sessions list: the group's name, a QQ badge, the group id.
  await expect
    .poll(async () => (await api.ctx.get(`/api/sessions/${encodeURIComponent(SESSION_ID)}`)).status())
    .toBe(200);
  await page.goto("/");
  const sessionRow = page.locator(`tr[data-session-id="${SESSION_ID}"]`);
  await expect(sessionRow).toContainText(GROUP_NAME);
  await expect(sessionRow.getByTestId("platform-badge")).toHaveText("QQ");
  await expect(sessionRow.getByTestId("session-group-id")).toContainText(GROUP_ID);

  // The live view: the message marked QQ, its picture loaded through the server (the page's CSP allows
  // images from this origin only; the browser never contacts the image host).
  await sessionRow.getByRole("link", { name: "Live", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${encodeURIComponent(SESSION_ID)}$`));
  const message = page.getByTestId("chat-message").filter({ hasText: text });
  await expect(message).toBeVisible();
  await expect(message).toHaveAttribute("data-platform", "qq");
  await expect(message.getByTestId("platform-badge")).toHaveText("QQ");
  const picture = message.getByTestId("message-image");
  await expect(picture).toHaveAttribute("src", new RegExp(`^/api/sessions/[^/]+/messages/[^/]+/images/0$`));
  await expect(picture).toHaveAttribute("referrerpolicy", "no-referrer");
  await expect.poll(() => picture.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);

  // Recalled on QQ: it stays, struck through and labelled.
  impl.event({
    post_type: "notice",
    notice_type: "group_recall",
    group_id: Number(GROUP_ID),
    user_id: 30003,
    operator_id: 30003,
    message_id: 501,
  });
  await expect(message).toHaveAttribute("data-recalled", "true");
  await expect(message.getByTestId("recalled")).toBeVisible();

  // Send as the bot, into the real chat: a send_group_msg frame at the implementation.
  const botBox = page.getByTestId("bot-send");
  await expect(botBox).toContainText("into the real QQ chat");
  const said = "运营者代发：大家好";
  await botBox.getByLabel("Text to send as the bot").fill(said);
  await botBox.getByRole("button", { name: "Send as bot" }).click();
  await expect
    .poll(() =>
      impl?.actions.some(
        (a) =>
          a.action === "send_group_msg" &&
          String(a.params.group_id) === GROUP_ID &&
          messageText(a.params.message).includes(said),
      ),
    )
    .toBe(true);
  await expect(botBox.getByTestId("bot-send-result")).toHaveAttribute("data-delivered", "true");
  // Audited and shown as an operator event.
  await expect(page.locator('[data-testid="notice"][data-type="operator.action"]').last()).toBeVisible();
});

test("deny a group from the platforms page: its next message is not taken, the change is audited", async ({
  page,
  api,
}) => {
  impl ??= await FakeImplementation.connect();
  const denied = "20999";
  await page.goto("/platforms");
  const form = page.getByTestId("audience-form");
  await form.getByLabel("Groups denied").fill(`${denied}\nnot-an-id`);
  await expect(form.getByTestId("audience-invalid")).toContainText("not-an-id");
  await expect(form.getByRole("button", { name: "Save" })).toBeDisabled();
  await form.getByLabel("Groups denied").fill(denied);
  await form.getByLabel("Reason (audited)").fill("e2e: spam group");
  await form.getByRole("button", { name: "Save" }).click();
  await expect(form.getByTestId("audience-saved")).toBeVisible();

  impl.event({
    post_type: "message",
    message_type: "group",
    sub_type: "normal",
    message_id: 777,
    group_id: Number(denied),
    user_id: 30003,
    message: [{ type: "text", data: { text: "from a denied group" } }],
    raw_message: "from a denied group",
    font: 0,
    sender: { user_id: 30003, nickname: "Alice", role: "member" },
  });
  await expect
    .poll(async () => platformsResponseSchema.parse(await (await api.ctx.get("/api/platforms")).json()).inbound?.denied)
    .toBe(1);
  const audit = auditPageSchema.parse(await (await api.ctx.get("/api/audit?action=platforms.audience")).json());
  expect(audit.entries[0]).toMatchObject({ reason: "e2e: spam group", after: { groups: { deny: [denied] } } });
});

test("a friend request is listed on the platforms page as it comes, the stranger's words as text", async ({ page }) => {
  impl ??= await FakeImplementation.connect();
  await page.goto("/platforms");
  const requests = page.getByTestId("platform-requests");
  await expect(requests).toHaveAttribute("data-policy", "notify");
  const words = "<img src=x onerror=\"document.title='pwned'\">我是小明，加个好友";
  impl.event({ post_type: "request", request_type: "friend", user_id: 30004, comment: words, flag: "e2e-flag-1" });
  // Shown without a reload (the platform.request on the _platforms stream refetches the list).
  const row = requests.getByTestId("platform-request").first();
  await expect(row).toContainText("30004 asks to be friends");
  await expect(row).toContainText(words);
  await expect(row).toHaveAttribute("data-outcome", "pending");
  await expect(row).toContainText("Waiting for you");
  expect(await page.title()).not.toBe("pwned");
  // notify only records: the implementation was not asked to approve anything.
  expect(impl.actions.some((a) => a.action === "set_friend_add_request")).toBe(false);
});
