"use client";
// Speaks as the bot: POST /api/sessions/:id/send. For a platform session the text goes into the
// real chat (a group or a private peer) through the platform connection; the server audits it and
// the timeline shows it as an operator event. The answer says whether it was delivered.
import { useMutation } from "@tanstack/react-query";
import { useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { api, ApiRequestError } from "../../lib/client/api";
import { useT } from "../../lib/client/react/use-locale";
import { chatPlatformLabel } from "../../lib/i18n/platforms";
import type { OperatorSendResponse } from "../../lib/platforms/status";
import { describeError } from "../ui/States";

/** The server's limit (operatorSendBodySchema). */
const MAX_BOT_TEXT = 4_000;

export function BotSendBox({ sessionId, platform }: { sessionId: string; platform: string | undefined }) {
  const t = useT();
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

  const where = chat ? t("bot.intoChat", { chat }) : t("bot.intoSession");
  return (
    <form className="botbox" onSubmit={submit} aria-label={t("bot.form")} data-testid="bot-send">
      <span className="botbox-label" title={chat ? t("bot.titleChat", { where }) : t("bot.titleLocal")}>
        {t("bot.label", { where })}
      </span>
      <textarea
        ref={textRef}
        className="input chat-text"
        rows={1}
        placeholder={chat ? t("bot.hintChat", { chat }) : t("bot.hint")}
        value={text}
        maxLength={MAX_BOT_TEXT}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKey}
        aria-label={t("bot.text")}
      />
      <button className="btn" disabled={!text.trim() || send.isPending}>
        {t(send.isPending ? "chat.sending" : "bot.send")}
      </button>
      {send.isError && (
        <div className="form-error botbox-result" role="alert" data-testid="bot-send-result" data-delivered="false">
          {send.error instanceof ApiRequestError && send.error.status === 502
            ? t("bot.notDelivered", { error: send.error.message })
            : t("bot.notSent", { error: describeError(send.error) })}
        </div>
      )}
      {send.isSuccess && <SendResult result={send.data} />}
    </form>
  );
}

function SendResult({ result }: { result: OperatorSendResponse }) {
  const t = useT();
  const id = result.messageId;
  if (!result.delivered) {
    return (
      <div className="form-error botbox-result" role="alert" data-testid="bot-send-result" data-delivered="false">
        {t("bot.notDelivered", { error: result.error ?? t("bot.platformRefused") })}
      </div>
    );
  }
  return (
    <div className="botbox-result ok-text" role="status" data-testid="bot-send-result" data-delivered="true">
      {id ? t("bot.deliveredId", { id }) : t("bot.delivered")}
    </div>
  );
}
