"use client";
// Sends a message into the session as a named user, optionally @-ing the bot. It enters the
// engine exactly like a platform message; its echo arrives through the live stream. "@bot" is
// offered in group chats only: in a private chat every message is already addressed to the bot.
import { useMutation } from "@tanstack/react-query";
import { useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { MAX_TEXT_CHARS } from "../../lib/api/schemas";
import { api, ApiRequestError } from "../../lib/client/api";
import { useT } from "../../lib/client/react/use-locale";
import { CHAT_NAME_KEY, chatUserId, savedChatName } from "../../lib/client/chat-name";
import { describeError } from "../ui/States";

export function ChatBox({ sessionId, isGroupChat }: { sessionId: string; isGroupChat: boolean | undefined }) {
  const t = useT();
  // Rendered on the client only (the live view mounts it once the events are loaded).
  const [name, setName] = useState(() =>
    savedChatName(typeof window === "undefined" ? undefined : window.localStorage),
  );
  const [text, setText] = useState("");
  const [atBotChosen, setAtBot] = useState(false);
  const textRef = useRef<HTMLTextAreaElement>(null);
  // Until the session is known to be private, the button stays (group is the default).
  const canAtBot = isGroupChat !== false;
  const atBot = canAtBot && atBotChosen;

  const send = useMutation({
    mutationFn: (body: { text: string; atBot: boolean; name: string }) =>
      api.sendMessage(sessionId, {
        userId: chatUserId(body.name),
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
    window.localStorage.setItem(CHAT_NAME_KEY, name.trim());
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
    <form className={`chatbox${canAtBot ? "" : " chatbox-private"}`} onSubmit={submit} aria-label={t("chat.form")}>
      <input
        className="input chat-name"
        value={name}
        maxLength={128}
        onChange={(e) => {
          setName(e.target.value);
          // Kept as typed: a box that mounts again (the live view reloading its events) shows this name.
          if (e.target.value.trim()) window.localStorage.setItem(CHAT_NAME_KEY, e.target.value.trim());
        }}
        aria-label={t("chat.name")}
        title={t("chat.name")}
        onKeyDown={(e) => e.stopPropagation()}
      />
      {canAtBot && (
        <button
          type="button"
          className={`btn chat-at${atBot ? " active" : ""}`}
          aria-pressed={atBot}
          onClick={() => setAtBot(!atBot)}
          title={t("chat.atBotTitle")}
        >
          @bot
        </button>
      )}
      <textarea
        ref={textRef}
        className="input chat-text"
        rows={1}
        placeholder={t(atBot ? "chat.toBot" : "chat.toChat")}
        value={text}
        maxLength={MAX_TEXT_CHARS}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKey}
        aria-label={t("chat.text")}
      />
      <button className="btn btn-primary" disabled={!text.trim() || !name.trim() || send.isPending}>
        {t(send.isPending ? "chat.sending" : "chat.send")}
      </button>
      {send.isError && (
        <div className="form-error chat-error" role="alert">
          {send.error instanceof ApiRequestError && send.error.status === 429
            ? t("chat.tooMany")
            : describeError(send.error)}
        </div>
      )}
    </form>
  );
}
