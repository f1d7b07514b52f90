// The chat box as first rendered: the remembered speaker is already in the name field (restoring it
// in an effect after the first paint overwrote a name typed in between: the "previous speaker"
// race), and "@bot" is offered in group chats only.
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ChatBox } from "../../components/chat/ChatBox";
import { CHAT_NAME_KEY, chatUserId, savedChatName } from "../../lib/client/chat-name";

function render(isGroupChat: boolean | undefined): string {
  const client = new QueryClient();
  return renderToStaticMarkup(
    createElement(QueryClientProvider, { client }, createElement(ChatBox, { sessionId: "s1", isGroupChat })),
  );
}

const nameField = (html: string) => /<input[^>]*aria-label="Your name in the chat"[^>]*>/.exec(html)?.[0] ?? "";

afterEach(() => vi.unstubAllGlobals());

describe("ChatBox", () => {
  it("renders the remembered speaker in its first render, so no later restore can overwrite a typed name", () => {
    const stored = new Map([[CHAT_NAME_KEY, "Bob"]]);
    vi.stubGlobal("window", { localStorage: { getItem: (k: string) => stored.get(k) ?? null } });
    expect(nameField(render(true))).toContain('value="Bob"');
  });

  it("falls back to Operator without storage or with storage disabled", () => {
    expect(nameField(render(true))).toContain('value="Operator"');
    expect(savedChatName(undefined)).toBe("Operator");
    expect(savedChatName({ getItem: () => "   " })).toBe("Operator");
    expect(
      savedChatName({
        getItem: () => {
          throw new Error("denied");
        },
      }),
    ).toBe("Operator");
    expect(chatUserId(" Alice  Smith ")).toBe("dashboard:alice-smith");
  });

  it("offers @bot in group chats (and while the session is loading), never in private chats", () => {
    expect(render(true)).toContain(">@bot</button>");
    expect(render(undefined)).toContain(">@bot</button>");
    const priv = render(false);
    expect(priv).not.toContain("@bot</button>");
    expect(priv).toContain("chatbox-private");
  });
});
