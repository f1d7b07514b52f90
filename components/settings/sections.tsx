"use client";
// The Settings page's forms, one per section; each field shows the server's validation message for
// its path ("chat.talkValue", "prompts.en:maisaka_chat"). Inputs hold text as typed.
import { useState, type ReactNode } from "react";
import { useT } from "../../lib/client/react/use-locale";
import {
  PROMPT_LOCALES,
  TASKS,
  type PromptLocale,
  type SettingsDraft,
  type TalkRuleDraft,
} from "../../lib/client/settings";

export type FieldErrors = Record<string, string>;

interface SectionProps {
  draft: SettingsDraft;
  onChange: (next: SettingsDraft) => void;
  errors: FieldErrors;
}

function Field({
  label,
  path,
  errors,
  children,
}: {
  label: string;
  path: string;
  errors: FieldErrors;
  children: ReactNode;
}) {
  const problem = errors[path];
  return (
    <label className="field" data-field={path}>
      <span>{label}</span>
      {children}
      {problem && (
        <span className="form-error" data-testid={`field-error-${path}`}>
          {problem}
        </span>
      )}
    </label>
  );
}

export function BotSection({ draft, onChange, errors }: SectionProps) {
  const t = useT();
  const set = (key: keyof SettingsDraft["bot"], value: string) =>
    onChange({ ...draft, bot: { ...draft.bot, [key]: value } });
  return (
    <div className="settings-grid">
      <Field label={t("settings.bot.nickname")} path="bot.nickname" errors={errors}>
        <input
          className="input"
          value={draft.bot.nickname}
          onChange={(e) => set("nickname", e.target.value)}
          data-testid="settings-nickname"
        />
      </Field>
      <Field label={t("settings.bot.aliases")} path="bot.aliases" errors={errors}>
        <input className="input" value={draft.bot.aliases} onChange={(e) => set("aliases", e.target.value)} />
      </Field>
      <Field label={t("settings.bot.locale")} path="bot.locale" errors={errors}>
        <select className="input" value={draft.bot.locale} onChange={(e) => set("locale", e.target.value)}>
          {PROMPT_LOCALES.map((l) => (
            <option key={l} value={l}>
              {l}
            </option>
          ))}
        </select>
      </Field>
      <Field label={t("settings.bot.personality")} path="bot.personality" errors={errors}>
        <textarea
          className="input"
          rows={4}
          value={draft.bot.personality}
          onChange={(e) => set("personality", e.target.value)}
        />
      </Field>
    </div>
  );
}

export function ChatSection({ draft, onChange, errors }: SectionProps) {
  const t = useT();
  const setChat = (key: string, value: string | boolean) =>
    onChange({ ...draft, chat: { ...draft.chat, [key]: value } });
  const setRules = (rules: TalkRuleDraft[]) => onChange({ ...draft, rules });
  const setRule = (i: number, patch: Partial<TalkRuleDraft>) =>
    setRules(draft.rules.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <div>
      <div className="settings-grid">
        {Object.entries(draft.chat).map(([key, value]) => (
          <Field key={key} label={key} path={`chat.${key}`} errors={errors}>
            {typeof value === "boolean" ? (
              <input type="checkbox" checked={value} onChange={(e) => setChat(key, e.target.checked)} />
            ) : (
              <input
                className="input input-sm"
                inputMode="decimal"
                value={value}
                onChange={(e) => setChat(key, e.target.value)}
                data-testid={`settings-chat-${key}`}
              />
            )}
          </Field>
        ))}
      </div>
      <h3>{t("settings.chat.rules")}</h3>
      <p className="muted small">{t("settings.chat.rulesHelp")}</p>
      {draft.rules.map((rule, i) => (
        <div key={i} className="toolbar" data-testid="talk-rule">
          {(["start", "end", "value"] as const).map((k) => (
            <Field key={k} label={k} path={`chat.talkValueRules.${i}.${k}`} errors={errors}>
              <input className="input input-sm" value={rule[k]} onChange={(e) => setRule(i, { [k]: e.target.value })} />
            </Field>
          ))}
          <Field label="chat" path={`chat.talkValueRules.${i}.chat`} errors={errors}>
            <select
              className="input input-sm"
              value={rule.chat}
              onChange={(e) => setRule(i, { chat: e.target.value as TalkRuleDraft["chat"] })}
            >
              <option value="">{t("settings.chat.both")}</option>
              <option value="group">{t("session.group")}</option>
              <option value="private">{t("session.private")}</option>
            </select>
          </Field>
          <button
            type="button"
            className="btn btn-sm btn-ghost"
            onClick={() => setRules(draft.rules.filter((_, j) => j !== i))}
          >
            {t("settings.remove")}
          </button>
        </div>
      ))}
      <button
        type="button"
        className="btn btn-sm"
        onClick={() => setRules([...draft.rules, { start: "00:00", end: "08:00", value: "0.5", chat: "" }])}
      >
        {t("settings.chat.addRule")}
      </button>
    </div>
  );
}

export function ModelsSection({ draft, onChange, errors, endpoints }: SectionProps & { endpoints: string[] }) {
  const t = useT();
  return (
    <div>
      <p className="muted small">{t("settings.models.help")}</p>
      <table className="table" aria-label={t("settings.section.models")}>
        <thead>
          <tr>
            <th>{t("settings.models.task")}</th>
            <th>{t("settings.models.endpoint")}</th>
            <th>{t("settings.models.model")}</th>
          </tr>
        </thead>
        <tbody>
          {TASKS.map((task) => {
            const route = draft.tasks[task];
            const set = (patch: Partial<typeof route>) =>
              onChange({ ...draft, tasks: { ...draft.tasks, [task]: { ...route, ...patch } } });
            const problem = Object.entries(errors).find(
              ([p]) => p.startsWith(`models.tasks.${task}`) || p === "models.tasks",
            );
            return (
              <tr key={task}>
                <td className="mono">{task}</td>
                <td>
                  <select
                    className="input input-sm"
                    value={route.endpoint}
                    onChange={(e) => set({ endpoint: e.target.value })}
                  >
                    <option value="">{t("settings.models.default")}</option>
                    {endpoints.map((e) => (
                      <option key={e} value={e}>
                        {e}
                      </option>
                    ))}
                  </select>
                </td>
                <td>
                  <input
                    className="input input-sm"
                    value={route.model}
                    onChange={(e) => set({ model: e.target.value })}
                  />
                  {problem && <div className="form-error">{problem[1]}</div>}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

export function PromptsSection({
  draft,
  onChange,
  errors,
  names,
  defaults,
}: SectionProps & { names: string[]; defaults: Record<PromptLocale, Record<string, string>> }) {
  const t = useT();
  const [locale, setLocale] = useState<PromptLocale>("zh-CN");
  const [name, setName] = useState(names[0] ?? "");
  const key = `${locale}:${name}`;
  const text = draft.prompts[key] ?? "";
  const overridden = Object.keys(draft.prompts).filter((k) => draft.prompts[k]);
  const set = (value: string) => onChange({ ...draft, prompts: { ...draft.prompts, [key]: value } });
  return (
    <div>
      <div className="toolbar">
        <div className="seg" role="tablist" aria-label={t("settings.prompts.locale")}>
          {PROMPT_LOCALES.map((l) => (
            <button
              key={l}
              role="tab"
              aria-selected={locale === l}
              className={locale === l ? "active" : ""}
              onClick={() => setLocale(l)}
            >
              {l}
            </button>
          ))}
        </div>
        <select
          className="input input-sm"
          value={name}
          onChange={(e) => setName(e.target.value)}
          aria-label={t("settings.prompts.template")}
          data-testid="settings-prompt-name"
        >
          {names.map((n) => (
            <option key={n} value={n}>
              {n}
              {draft.prompts[`${locale}:${n}`] ? " *" : ""}
            </option>
          ))}
        </select>
        <span className="muted small">{t("settings.prompts.overridden", { count: overridden.length })}</span>
      </div>
      <div className="settings-prompts">
        <Field label={t("settings.prompts.override")} path={`prompts.${key}`} errors={errors}>
          <textarea
            className="input mono"
            rows={10}
            value={text}
            placeholder={t("settings.prompts.empty")}
            onChange={(e) => set(e.target.value)}
            data-testid="settings-prompt-text"
          />
        </Field>
        <div className="field">
          <span>{t("settings.prompts.default")}</span>
          <pre className="text small settings-default" data-testid="settings-prompt-default">
            {defaults[locale][name] ?? ""}
          </pre>
        </div>
      </div>
    </div>
  );
}
