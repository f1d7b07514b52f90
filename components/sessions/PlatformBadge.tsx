// A session's platform: a chat platform ("QQ") stands out, local ones (dashboard, api) stay muted.
import { chatPlatformLabel } from "../../lib/i18n/platforms";
import { Badge } from "../ui/Badge";

export function PlatformBadge({ platform }: { platform: string }) {
  const chat = chatPlatformLabel(platform);
  return chat ? (
    <Badge tone="info" title={`A real chat on ${chat} (platform "${platform}")`} testId="platform-badge">
      {chat}
    </Badge>
  ) : (
    <Badge tone="muted" title="A local session (no chat platform behind it)">
      {platform}
    </Badge>
  );
}
