// A session's platform: a chat platform ("QQ") stands out, local ones (dashboard, api) stay muted.
import { useT } from "../../lib/client/react/use-locale";
import { chatPlatformLabel } from "../../lib/i18n/platforms";
import { Badge } from "../ui/Badge";

export function PlatformBadge({ platform }: { platform: string }) {
  const t = useT();
  const chat = chatPlatformLabel(platform);
  return chat ? (
    <Badge tone="info" title={t("sessions.platformChat", { chat, platform })} testId="platform-badge">
      {chat}
    </Badge>
  ) : (
    <Badge tone="muted" title={t("sessions.platformLocal")}>
      {platform}
    </Badge>
  );
}
