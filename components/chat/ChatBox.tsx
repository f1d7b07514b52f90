"use client";
// Sends a message into the session as a named user, optionally @-ing the bot. It enters the
// engine exactly like a platform message; its echo arrives through the live stream.
import { useMutation } from "@tanstack/react-query";
import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { MAX_TEXT_CHARS } from "../../lib/api/schemas";
import { api, ApiRequestError } from "../../lib/client/api";
import { describeError } from "../ui/States";

const NAME_KEY = "maisaka.chat.name";

function userIdFor(name: string): string {
  return `dashboard:${name.trim().toLowerCase().replace(/\s+/g, "-").slice(0, 100)}`;
}

export function ChatBox({ sessionId }: { sessionId: string }) {
  const [name, setName] = useState("Operator");
  const [text, setText] = useState("");
  const [atBot, setAtBot] = useState(false);
  const textRef = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    const saved = window.localStorage.getItem(NAME_KEY);
    if (saved) setName(saved);
  }, []);

  const send = useMutation({
    mutationFn: (body: { text: string; atBot: boolean; name: string }) =>
      api.sendMessage(sessionId, {
        userId: userIdFor(body.name),
        userName: body.name.trim(),
        text: body.text,
        atBot: body.atBot || undefined,
        mentionsBot: body.atBot || undefined,
      }),
    onSuccess: () => {
      setText("");
      setAtBot(false);
      textRef.current?.focus();
    },
  });

  const submit = (e?: FormEvent) => {
    e?.preventDefault();
    if (!text.trim() || !name.trim() || send.isPending) return;
    window.localStorage.setItem(NAME_KEY, name.trim());
    send.mutate({ text, atBot, name });
  };

  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    // Enter sends, Shift+Enter breaks the line; keys typed here never reach the j/k shortcuts.
    e.stopPropagation();
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      submit();
    }
  };

  return (
    <form className="chatbox" onSubmit={submit} aria-label="Send a message into this session">
      <input
        className="input chat-name"
        value={name}
        maxLength={128}
        onChange={(e) => setName(e.target.value)}
        aria-label="Your name in the chat"
        title="Your name in the chat"
        onKeyDown={(e) => e.stopPropagation()}
      />
      <button
        type="button"
        className={`btn chat-at${atBot ? " active" : ""}`}
        aria-pressed={atBot}
        onClick={() => setAtBot(!atBot)}
        title="@ the bot: it will answer this message directly"
      >
        @bot
      </button>
      <textarea
        ref={textRef}
        className="input chat-text"
        rows={1}
        placeholder={
          atBot ? "Message to the bot (@)… Enter to send" : "Message into the chat… Enter to send, Shift+Enter new line"
        }
        value={text}
        maxLength={MAX_TEXT_CHARS}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKey}
        aria-label="Message text"
      />
      <button className="btn btn-primary" disabled={!text.trim() || !name.trim() || send.isPending}>
        {send.isPending ? "Sending…" : "Send"}
      </button>
      {send.isError && (
        <div className="form-error chat-error" role="alert">
          {send.error instanceof ApiRequestError && send.error.status === 429
            ? "Too many messages at once; wait a moment and send again."
            : describeError(send.error)}
        </div>
      )}
    </form>
  );
}
