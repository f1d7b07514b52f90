// The /sources page's texts on who may define MCP servers (the rest are in lib/i18n/messages.ts).
import { catalog } from "../message";

export const sourcesTexts = catalog(
  {
    "sources.switchOn": "Enable",
    "sources.switchOff": "Disable",
    "sources.adminOnly":
      "Only admins define MCP servers (what runs, where it connects); operators may enable, disable and restart them.",
    "sources.secretsMove":
      "Changing the command, arguments, working folder or URL drops the secrets already set: enter again the ones the new program or address needs.",
  },
  {
    "sources.switchOn": "启用",
    "sources.switchOff": "停用",
    "sources.adminOnly": "只有管理员能定义 MCP 服务器（运行什么、连接到哪里）；操作员可以启用、停用和重启它们。",
    "sources.secretsMove": "修改命令、参数、工作目录或 URL 会清除已设置的密钥：请为新的程序或地址重新填写需要的密钥。",
  },
);
