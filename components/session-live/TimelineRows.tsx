"use client";
// Rows of a session timeline other than cycle cards: chat messages and notices. Chat text is
// untrusted: it is always rendered as React text, never as HTML.
import { memo } from "react";
import { formatClock, shortId } from "../../lib/client/format";
import type { ChatEvent, NoticeEvent } from "../../lib/client/timeline";
import { Badge } from "../ui/Badge";

export const MessageRow = memo(function MessageRow({ event }: { event: ChatEvent }) {
  if (event.type === "message.sent") {
    return (
      <div className="msg msg-out" data-seq={event.seq} data-testid="chat-message" data-direction="out">
        <span className="msg-time mono">{formatClock(event.ts)}</span>
        <span className="msg-who bot">bot</span>
        <span className="msg-text text">
          {event.data.kind === "emoji" && <Badge tone="muted">emoji</Badge>} {event.data.content}
        </span>
        {event.data.replyTo && (
          <span className="msg-meta muted mono" title={`reply to ${event.data.replyTo}`}>
            ↩ {shortId(event.data.replyTo)}
          </span>
        )}
      </div>
    );
  }
  const d = event.data;
  return (
    <div className="msg msg-in" data-seq={event.seq} data-testid="chat-message" data-direction="in">
      <span className="msg-time mono">{formatClock(event.ts)}</span>
      <span className="msg-who" title={d.userId ? `${d.speakerName} (user id ${d.userId})` : d.speakerName}>
        {d.speakerName}
      </span>
      <span className="msg-text text">{d.content}</span>
      <span className="msg-meta">
        {d.atBot && (
          <Badge tone="accent" title="The message @-mentions the bot">
            @bot
          </Badge>
        )}
        {!d.atBot && d.mentionsBot && (
          <Badge tone="muted" title="The message names the bot">
            mention
          </Badge>
        )}
        <span className="muted mono" title={d.messageId}>
          {shortId(d.messageId)}
        </span>
      </span>
    </div>
  );
});

export const NoticeRow = memo(function NoticeRow({ event }: { event: NoticeEvent }) {
  return (
    <div className="notice" data-seq={event.seq}>
      <span className="msg-time mono">{formatClock(event.ts)}</span>
      <span className="text">{describeNotice(event)}</span>
    </div>
  );
});

function describeNotice(event: NoticeEvent): string {
  switch (event.type) {
    case "session.start":
      return `Session started: ${event.data.sessionName} (${event.data.isGroupChat ? "group" : "private"} on ${event.data.platform})`;
    case "session.stop":
      return `Session stopped: ${event.data.reason}`;
    case "tool.toggled":
      return `Tool ${event.data.toolName} ${event.data.enabled ? "enabled" : "disabled"} ${event.data.scope === "global" ? "globally" : "for this session"} by ${event.data.actor}${event.data.reason ? ` — “${event.data.reason}”` : ""}`;
    case "llm.retry":
    case "llm.error":
      return `${event.type === "llm.error" ? "Model error" : "Model retry"} (${event.data.task}, ${event.data.model}, attempt ${event.data.attempt}): ${event.data.error}`;
  }
}
