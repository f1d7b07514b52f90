// Every page's own texts, merged into the dashboard's catalog (lib/i18n/messages.ts).
import { accountsTexts } from "./accounts";
import { auditTexts } from "./audit";
import { chatTexts } from "./chat";
import { cycleTexts } from "./cycle";
import { diffTexts } from "./diff";
import { liveTexts } from "./live";
import { modelInputTexts } from "./model-input";
import { rerunTexts } from "./rerun";
import { shellTexts } from "./shell";
import { sourcesTexts } from "./sources";
import { toolRunTexts } from "./tool-run";
import { toolsTexts } from "./tools";
import { usageTexts } from "./usage";

export const pageTexts = {
  en: {
    ...accountsTexts.en,
    ...auditTexts.en,
    ...toolsTexts.en,
    ...cycleTexts.en,
    ...modelInputTexts.en,
    ...liveTexts.en,
    ...chatTexts.en,
    ...toolRunTexts.en,
    ...shellTexts.en,
    ...diffTexts.en,
    ...rerunTexts.en,
    ...sourcesTexts.en,
    ...usageTexts.en,
  },
  zh: {
    ...accountsTexts.zh,
    ...auditTexts.zh,
    ...toolsTexts.zh,
    ...cycleTexts.zh,
    ...modelInputTexts.zh,
    ...liveTexts.zh,
    ...chatTexts.zh,
    ...toolRunTexts.zh,
    ...shellTexts.zh,
    ...diffTexts.zh,
    ...rerunTexts.zh,
    ...sourcesTexts.zh,
    ...usageTexts.zh,
  },
};
