// Every page's own texts, merged into the dashboard's catalog (lib/i18n/messages.ts).
import { accountsTexts } from "./accounts";

export const pageTexts = {
  en: { ...accountsTexts.en },
  zh: { ...accountsTexts.zh },
};
