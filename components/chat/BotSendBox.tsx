"use client";
// Speaks as the bot: POST /api/sessions/:id/send. For a platform session the text goes into the
// real chat (a group or a private peer) through the platform connection; the server audits it and
// the timeline shows it as an operator event. The answer says whether it was delivered.
import { useMutation } from "@tanstack/react-query";
import { useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { api, ApiRequestError } from "../../lib/client/api";
import { chatPlatformLabel } from "../../lib/i18n/platforms";
import type { OperatorSendResponse } from "../../lib/platforms/status";
import { describeError } from "../ui/States";

/** The server's limit (operatorSendBodySchema). */
const MAX_BOT_TEXT = 4_000;

export function BotSendBox({ sessionId, platform }: { sessionId: string; platform: string | undefined }) {
  const [text, setText] = useState("");
  const textRef = useRef<HTMLTextAreaElement>(null);
  const chat = chatPlatformLabel(platform);
  const send = useMutation({
    mutationFn: (body: { text: string }) => api.sendAsBot(sessionId, body),
    onSuccess: (result) => {
      if (result.delivered) setText("");
      textRef.current?.focus();
    },
  });

  const submit = (e?: FormEvent) => {
    e?.preventDefault();
    if (!text.trim() || send.isPending) return;
    send.mutate({ text: text.trim() });
  };
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    // Keys typed here never reach the timeline's j/k shortcuts.
    e.stopPropagation();
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      submit();
    }
  };

  const where = chat ? `into the real ${chat} chat` : "into this session";
  return (
    <form className="botbox" onSubmit={submit} aria-label="Send as the bot" data-testid="bot-send">
      <span
        className="botbox-label"
        title={
          chat
            ? `Sent by the bot's own account ${where}: people in the chat see it. Audited.`
            : "Sent as the bot's own message (this session has no chat platform behind it). Audited."
        }
      >
        As the bot, {where}
      </span>
      <textarea
        ref={textRef}
        className="input chat-text"
        rows={1}
        placeholder={chat ? `The bot says… (goes out to ${chat}) Enter to send` : "The bot says… Enter to send"}
        value={text}
        maxLength={MAX_BOT_TEXT}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKey}
        aria-label="Text to send as the bot"
      />
      <button className="btn" disabled={!text.trim() || send.isPending}>
        {send.isPending ? "Sending…" : "Send as bot"}
      </button>
      {send.isError && (
        <div className="form-error botbox-result" role="alert" data-testid="bot-send-result" data-delivered="false">
          {send.error instanceof ApiRequestError && send.error.status === 502
            ? `Not delivered: ${send.error.message}`
            : `Not sent: ${describeError(send.error)}`}
        </div>
      )}
      {send.isSuccess && <SendResult result={send.data} />}
    </form>
  );
}

function SendResult({ result }: { result: OperatorSendResponse }) {
  const id = result.messageId;
  if (!result.delivered) {
    return (
      <div className="form-error botbox-result" role="alert" data-testid="bot-send-result" data-delivered="false">
        Not delivered: {result.error ?? "the platform did not take it"}
      </div>
    );
  }
  return (
    <div className="botbox-result ok-text" role="status" data-testid="bot-send-result" data-delivered="true">
      Delivered{id ? ` (message ${id})` : ""}.
    </div>
  );
}
