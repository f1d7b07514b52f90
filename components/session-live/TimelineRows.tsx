"use client";
// Rows of a session timeline other than cycle cards: chat messages and notices. Chat text is
// untrusted: it is always rendered as React text, never as HTML; platform images load only from
// http(s) URLs, without a referrer.
import { memo } from "react";
import { formatClock, shortId } from "../../lib/client/format";
import { chatImagePath } from "../../lib/client/images";
import { describePending, pendingRemaining } from "../../lib/client/pending";
import { useNow } from "../../lib/client/react/use-now";
import type { ChatEvent, NoticeEvent, PendingEvent } from "../../lib/client/timeline";
import type { EventData } from "../../lib/events/schemas";
import { chatPlatformLabel } from "../../lib/i18n/platforms";
import { Badge } from "../ui/Badge";

export const MessageRow = memo(function MessageRow({
  event,
  recalled,
  arrival,
  live,
}: {
  event: ChatEvent;
  recalled?: boolean;
  /** The message.pending that first showed it: the row keeps its arrival time. */
  arrival?: PendingEvent;
  /** A pending row counts its gate down on the wall clock (replay shows the ETA it was given). */
  live?: boolean;
}) {
  const recalledClass = recalled ? " msg-recalled" : "";
  const recalledBadge = recalled && (
    <Badge tone="warn" title="Recalled on the platform: no longer in the models' context" testId="recalled">
      recalled
    </Badge>
  );
  if (event.type === "message.sent") {
    return (
      <div
        className={`msg msg-out${recalledClass}`}
        data-seq={event.seq}
        data-testid="chat-message"
        data-direction="out"
        data-recalled={recalled || undefined}
      >
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
        {recalledBadge}
      </div>
    );
  }
  const d = event.data;
  const taken = event.type === "message.ingested" ? event.data : null;
  const pending = event.type === "message.pending" ? event : null;
  const platform = chatPlatformLabel(d.platform);
  return (
    <div
      className={`msg msg-in${recalledClass}${pending ? " msg-pending" : ""}`}
      data-seq={event.seq}
      data-testid="chat-message"
      data-direction="in"
      data-platform={d.platform}
      data-recalled={recalled || undefined}
      data-pending={pending ? pending.data.reason : undefined}
    >
      <span className="msg-time mono">{formatClock((arrival ?? event).ts)}</span>
      <span className="msg-who" title={d.userId ? `${d.speakerName} (user id ${d.userId})` : d.speakerName}>
        {d.speakerName}
      </span>
      <span className="msg-body">
        <span className="msg-text text">{d.content}</span>
        {d.images && d.images.length > 0 && (
          <MessageImages sessionId={event.sessionId} messageId={d.messageId} images={d.images} />
        )}
      </span>
      <span className="msg-meta">
        {recalledBadge}
        {platform && (
          <Badge tone="info" title={`From the chat platform (${d.platform})`} testId="platform-badge">
            {platform}
          </Badge>
        )}
        {pending && <PendingBadge event={pending} live={live} />}
        {taken?.replyTo && (
          <span className="muted mono" title={`reply to ${taken.replyTo}`}>
            ↩ {shortId(taken.replyTo)}
          </span>
        )}
        {taken?.atBot && (
          <Badge tone="accent" title="The message @-mentions the bot">
            @bot
          </Badge>
        )}
        {taken && !taken.atBot && taken.mentionsBot && (
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

/** Why the message waits; only a live pending row ticks (one shared clock, see useNow). */
function PendingBadge({ event, live }: { event: PendingEvent; live?: boolean }) {
  return live ? <LivePendingText event={event} /> : <PendingText event={event} now={event.ts} />;
}

function LivePendingText({ event }: { event: PendingEvent }) {
  return <PendingText event={event} now={useNow()} />;
}

function PendingText({ event, now }: { event: PendingEvent; now: number }) {
  const text = describePending(event.data, pendingRemaining(event, now));
  return (
    <Badge tone="warn" title="Not yet taken by a turn: why it waits" testId="pending-reason">
      ⏳ {text}
    </Badge>
  );
}

type ChatImage = NonNullable<EventData<"message.ingested">["images"]>[number];

/** The message's pictures, small and lazy; one that cannot be shown says what it is instead. */
function MessageImages({
  sessionId,
  messageId,
  images,
}: {
  sessionId: string;
  messageId: string;
  images: readonly ChatImage[];
}) {
  return (
    <span className="msg-images">
      {images.map((image, i) => {
        const url = chatImagePath(sessionId, messageId, i, image.url);
        const label = image.file ?? image.url ?? "image";
        return url ? (
          <a key={i} href={url} target="_blank" rel="noopener noreferrer" title={label}>
            <img
              className="msg-image"
              src={url}
              alt={`image ${i + 1}: ${label}`}
              loading="lazy"
              decoding="async"
              referrerPolicy="no-referrer"
              data-testid="message-image"
            />
          </a>
        ) : (
          <Badge key={i} tone="muted" title={label}>
            image
          </Badge>
        );
      })}
    </span>
  );
}

export const NoticeRow = memo(function NoticeRow({ event }: { event: NoticeEvent }) {
  const tone =
    event.type === "message.send_failed" || event.type === "llm.error"
      ? " notice-bad"
      : event.type === "operator.action"
        ? " notice-operator"
        : "";
  return (
    <div className={`notice${tone}`} data-seq={event.seq} data-testid="notice" data-type={event.type}>
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
    case "message.send_failed":
      return `Not delivered to ${event.data.target}${event.data.messageId ? ` (message ${shortId(event.data.messageId)})` : ""}: ${event.data.error}`;
    case "operator.action":
      return `Operator ${event.data.actor}: ${describeOperatorAction(event.data)}`;
    case "platform.connected":
    case "platform.disconnected":
      return `${event.data.platform} bot ${event.data.selfId} ${event.type === "platform.connected" ? "connected" : "disconnected"} (${event.data.mode}${event.data.role ? `, ${event.data.role}` : ""})${event.data.reason ? `: ${event.data.reason}` : ""}`;
  }
}

function describeOperatorAction(d: EventData<"operator.action">): string {
  const text = typeof d.detail.text === "string" ? d.detail.text : null;
  if (d.action === "message.send") {
    const failed = d.detail.delivered === false ? " (not delivered)" : "";
    return `sent as the bot to ${d.target}${text === null ? "" : `: “${text}”`}${failed}`;
  }
  if (d.action === "tool.invoke") {
    const outcome = d.detail.success === false ? "failed" : "succeeded";
    const ms = typeof d.detail.durationMs === "number" ? `, ${Math.round(d.detail.durationMs)} ms` : "";
    return `ran the tool ${d.target} by hand (${outcome}${ms})`;
  }
  return `${d.action} on ${d.target}`;
}
