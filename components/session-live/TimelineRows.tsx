"use client";
// Rows of a session timeline other than cycle cards: chat messages and notices. Chat text is
// untrusted: it is always rendered as React text, never as HTML; platform images load only from
// http(s) URLs, without a referrer.
import { memo } from "react";
import { formatClock, formatDuration, shortId } from "../../lib/client/format";
import { chatImagePath } from "../../lib/client/images";
import { describePending, heldBy, pendingRemaining } from "../../lib/client/pending";
import { useT } from "../../lib/client/react/use-locale";
import { useNow } from "../../lib/client/react/use-now";
import type { ChatEvent, NoticeEvent, PendingEvent } from "../../lib/client/timeline";
import type { EventData } from "../../lib/events/schemas";
import type { Translate } from "../../lib/i18n/messages";
import { chatPlatformLabel } from "../../lib/i18n/platforms";
import { Badge } from "../ui/Badge";
import { Icon } from "../ui/Icons";

export const MessageRow = memo(function MessageRow({
  event,
  recalled,
  waits,
  live,
}: {
  event: ChatEvent;
  recalled?: boolean;
  /** Its message.pending announcements: the row keeps the first one's time, and once taken says why it waited. */
  waits?: readonly PendingEvent[];
  /** A pending row counts its gate down on the wall clock (replay shows the ETA it was given). */
  live?: boolean;
}) {
  const t = useT();
  const recalledClass = recalled ? " msg-recalled" : "";
  const recalledBadge = recalled && (
    <Badge tone="warn" title={t("live.recalledTitle")} testId="recalled">
      {t("live.recalled")}
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
        <span className="msg-who bot">{t("live.bot")}</span>
        <span className="msg-text text">
          {event.data.kind === "emoji" && <Badge tone="muted">{t("live.emoji")}</Badge>} {event.data.content}
        </span>
        {event.data.replyTo && (
          <span className="msg-meta muted mono" title={t("cycle.replyTo", { id: event.data.replyTo })}>
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
      <span className="msg-time mono">{formatClock((waits?.[0] ?? event).ts)}</span>
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
          <Badge tone="info" title={t("live.fromPlatform", { platform: d.platform ?? "" })} testId="platform-badge">
            {platform}
          </Badge>
        )}
        {pending && <PendingBadge event={pending} live={live} />}
        {taken && waits && heldBy(waits).length > 0 && <WaitedBadge waits={waits} takenAt={event.ts} />}
        {taken?.replyTo && (
          <span className="muted mono" title={t("cycle.replyTo", { id: taken.replyTo })}>
            ↩ {shortId(taken.replyTo)}
          </span>
        )}
        {taken?.atBot && (
          <Badge tone="accent" title={t("live.atBotTitle")}>
            @bot
          </Badge>
        )}
        {taken && !taken.atBot && taken.mentionsBot && (
          <Badge tone="muted" title={t("live.mentionTitle")}>
            {t("live.mention")}
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
  const t = useT();
  const text = describePending(event.data, pendingRemaining(event, now), t);
  return (
    <Badge tone="warn" title={t("live.pendingTitle")} testId="pending-reason">
      <Icon name="wait" /> {text}
    </Badge>
  );
}

/**
 * A message a turn took after it waited: for how long and why (the gates that held it, in order),
 * each announcement in the title. Stays on the row, in the live view and the replay alike.
 */
function WaitedBadge({ waits, takenAt }: { waits: readonly PendingEvent[]; takenAt: number }) {
  const t = useT();
  const history = waits.map((w) => `${formatClock(w.ts)} ${describePending(w.data, w.data.etaMs ?? null, t)}`);
  return (
    <Badge tone="muted" title={[t("live.waitedTitle"), ...history].join("\n")} testId="waited">
      {t("live.waited", {
        duration: formatDuration(takenAt - waits[0].ts),
        reasons: heldBy(waits)
          .map((reason) => t(`pending.held.${reason}`))
          .join(" → "),
      })}
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
  const t = useT();
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
              alt={t("live.imageAlt", { n: i + 1, label })}
              loading="lazy"
              decoding="async"
              referrerPolicy="no-referrer"
              data-testid="message-image"
            />
          </a>
        ) : (
          <Badge key={i} tone="muted" title={label}>
            {t("live.image")}
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
  const t = useT();
  return (
    <div className={`notice${tone}`} data-seq={event.seq} data-testid="notice" data-type={event.type}>
      <span className="msg-time mono">{formatClock(event.ts)}</span>
      <span className="text">{describeNotice(event, t)}</span>
    </div>
  );
});

function describeNotice(event: NoticeEvent, t: Translate): string {
  switch (event.type) {
    case "session.start":
      return t("notice.sessionStart", {
        name: event.data.sessionName,
        kind: t(event.data.isGroupChat ? "notice.group" : "notice.private"),
        platform: event.data.platform,
      });
    case "session.stop":
      return t("notice.sessionStop", { reason: event.data.reason });
    case "tool.toggled":
      return t(event.data.scope === "global" ? "notice.toolGlobal" : "notice.toolSession", {
        tool: event.data.toolName,
        state: t(event.data.enabled ? "notice.enabled" : "notice.disabled"),
        actor: event.data.actor,
        reason: event.data.reason ? t("notice.reason", { reason: event.data.reason }) : "",
      });
    case "llm.retry":
    case "llm.error":
      return t("notice.modelProblem", {
        what: t(event.type === "llm.error" ? "cycle.modelError" : "cycle.modelRetry"),
        task: event.data.task,
        model: event.data.model,
        attempt: event.data.attempt,
        error: event.data.error,
      });
    case "message.send_failed":
      return t("notice.notDelivered", {
        target: event.data.target,
        message: event.data.messageId ? t("notice.message", { id: shortId(event.data.messageId) }) : "",
        error: event.data.error,
      });
    case "operator.action":
      return t("notice.operator", { actor: event.data.actor, what: describeOperatorAction(event.data, t) });
    case "platform.connected":
    case "platform.disconnected":
      return t("notice.platform", {
        platform: event.data.platform,
        selfId: event.data.selfId,
        state: t(event.type === "platform.connected" ? "notice.connected" : "notice.disconnected"),
        mode: event.data.role ? `${event.data.mode}, ${event.data.role}` : event.data.mode,
        reason: event.data.reason ? `: ${event.data.reason}` : "",
      });
  }
}

function describeOperatorAction(d: EventData<"operator.action">, t: Translate): string {
  const text = typeof d.detail.text === "string" ? d.detail.text : null;
  if (d.action === "message.send") {
    return t("notice.sentAsBot", {
      target: d.target,
      text: text === null ? "" : t("notice.quoted", { text }),
      failed: d.detail.delivered === false ? t("notice.sendFailed") : "",
    });
  }
  if (d.action === "tool.invoke") {
    return t("notice.ranTool", {
      tool: d.target,
      outcome: t(d.detail.success === false ? "cycle.failed" : "cycle.succeeded"),
      ms: typeof d.detail.durationMs === "number" ? t("notice.ms", { ms: Math.round(d.detail.durationMs) }) : "",
    });
  }
  return t("notice.actionOn", { action: d.action, target: d.target });
}
