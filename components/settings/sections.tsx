"use client";
// The Settings page's forms, one per section. Every control has a human label and a line of help
// (lib/i18n/settings-help.ts, keyed by config path), and shows the server's validation message for its
// path ("chat.talkValue", "prompts.en:maisaka_chat"). Inputs hold text as typed. Read-only (a viewer):
// the values are shown, nothing that adds or removes is.
import { useId, useState, type ReactNode } from "react";
import { useLocale, useT } from "../../lib/client/react/use-locale";
import {
  PROMPT_LOCALES,
  TASKS,
  type PromptLocale,
  type SettingsDraft,
  type TalkRuleDraft,
} from "../../lib/client/settings";
import { translate } from "../../lib/i18n/messages";
import { settingText, type SettingPath } from "../../lib/i18n/settings-help";

export type FieldErrors = Record<string, string>;

interface SectionProps {
  draft: SettingsDraft;
  onChange: (next: SettingsDraft) => void;
  errors: FieldErrors;
  readOnly: boolean;
}

/** What a control needs to be named by its label and described by its help. */
interface FieldA11y {
  id: string;
  "aria-describedby": string;
}

/** A setting's label and help in the page's language; an unknown path shows itself, marked. */
function useSettingText(path: string): { label: string; help: string | null } {
  const { locale } = useLocale();
  const text = settingText(locale, path);
  return text ? text : { label: path, help: null };
}

function Field({
  path,
  helpPath = path,
  errors,
  children,
}: {
  /** Where the server's validation names this value ("chat.talkValueRules.0.start"). */
  path: string;
  /** The setting it is, for its label and help ("chat.talkValueRules.start"). */
  helpPath?: string;
  errors: FieldErrors;
  children: (a11y: FieldA11y) => ReactNode;
}) {
  const id = useId();
  const { label, help } = useSettingText(helpPath);
  const problem = errors[path];
  return (
    <div className="field" data-field={path} data-help={help ? undefined : "missing"}>
      <label htmlFor={id}>{label}</label>
      {children({ id, "aria-describedby": `${id}-help` })}
      <span className="field-help" id={`${id}-help`}>
        {help}
      </span>
      {problem && (
        <span className="form-error" data-testid={`field-error-${path}`}>
          {problem}
        </span>
      )}
    </div>
  );
}

export function BotSection({ draft, onChange, errors, readOnly }: SectionProps) {
  const set = (key: keyof SettingsDraft["bot"], value: string) =>
    onChange({ ...draft, bot: { ...draft.bot, [key]: value } });
  return (
    <div className="settings-grid">
      <Field path="bot.nickname" errors={errors}>
        {(a11y) => (
          <input
            {...a11y}
            className="input"
            value={draft.bot.nickname}
            readOnly={readOnly}
            onChange={(e) => set("nickname", e.target.value)}
            data-testid="settings-nickname"
          />
        )}
      </Field>
      <Field path="bot.aliases" errors={errors}>
        {(a11y) => (
          <input
            {...a11y}
            className="input"
            value={draft.bot.aliases}
            readOnly={readOnly}
            onChange={(e) => set("aliases", e.target.value)}
          />
        )}
      </Field>
      <Field path="bot.locale" errors={errors}>
        {(a11y) => (
          <select
            {...a11y}
            className="input"
            value={draft.bot.locale}
            disabled={readOnly}
            onChange={(e) => set("locale", e.target.value)}
          >
            {PROMPT_LOCALES.map((l) => (
              <option key={l} value={l} lang={l}>
                {translate(l, "locale.name")}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field path="bot.personality" errors={errors}>
        {(a11y) => (
          <textarea
            {...a11y}
            className="input"
            rows={4}
            value={draft.bot.personality}
            readOnly={readOnly}
            onChange={(e) => set("personality", e.target.value)}
          />
        )}
      </Field>
    </div>
  );
}

export function ChatSection({ draft, onChange, errors, readOnly }: SectionProps) {
  const t = useT();
  const rules = useSettingText("chat.talkValueRules");
  const setChat = (key: string, value: string | boolean) =>
    onChange({ ...draft, chat: { ...draft.chat, [key]: value } });
  const setRules = (next: TalkRuleDraft[]) => onChange({ ...draft, rules: next });
  const setRule = (i: number, patch: Partial<TalkRuleDraft>) =>
    setRules(draft.rules.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <div>
      <div className="settings-grid">
        {Object.entries(draft.chat).map(([key, value]) => (
          <Field key={key} path={`chat.${key}`} errors={errors}>
            {(a11y) =>
              typeof value === "boolean" ? (
                <input
                  {...a11y}
                  type="checkbox"
                  checked={value}
                  disabled={readOnly}
                  onChange={(e) => setChat(key, e.target.checked)}
                />
              ) : (
                <input
                  {...a11y}
                  className="input input-sm"
                  inputMode="decimal"
                  value={value}
                  readOnly={readOnly}
                  onChange={(e) => setChat(key, e.target.value)}
                  data-testid={`settings-chat-${key}`}
                />
              )
            }
          </Field>
        ))}
      </div>
      <h3>{rules.label}</h3>
      <p className="field-help">{rules.help}</p>
      {draft.rules.map((rule, i) => (
        <div key={i} className="toolbar" data-testid="talk-rule">
          {(["start", "end", "value"] as const).map((k) => (
            <Field key={k} path={`chat.talkValueRules.${i}.${k}`} helpPath={`chat.talkValueRules.${k}`} errors={errors}>
              {(a11y) => (
                <input
                  {...a11y}
                  className="input input-sm"
                  value={rule[k]}
                  readOnly={readOnly}
                  onChange={(e) => setRule(i, { [k]: e.target.value })}
                />
              )}
            </Field>
          ))}
          <Field path={`chat.talkValueRules.${i}.chat`} helpPath="chat.talkValueRules.chat" errors={errors}>
            {(a11y) => (
              <select
                {...a11y}
                className="input input-sm"
                value={rule.chat}
                disabled={readOnly}
                onChange={(e) => setRule(i, { chat: e.target.value as TalkRuleDraft["chat"] })}
              >
                <option value="">{t("settings.chat.both")}</option>
                <option value="group">{t("session.group")}</option>
                <option value="private">{t("session.private")}</option>
              </select>
            )}
          </Field>
          {!readOnly && (
            <button
              type="button"
              className="btn btn-sm btn-ghost"
              onClick={() => setRules(draft.rules.filter((_, j) => j !== i))}
            >
              {t("settings.remove")}
            </button>
          )}
        </div>
      ))}
      {!readOnly && (
        <button
          type="button"
          className="btn btn-sm"
          onClick={() => setRules([...draft.rules, { start: "00:00", end: "08:00", value: "0.5", chat: "" }])}
        >
          {t("settings.chat.addRule")}
        </button>
      )}
    </div>
  );
}

function TaskRow({
  task,
  draft,
  onChange,
  errors,
  readOnly,
  endpoints,
}: SectionProps & { task: (typeof TASKS)[number]; endpoints: string[] }) {
  const t = useT();
  const id = useId();
  const { label, help } = useSettingText(`models.tasks.${task}` satisfies SettingPath);
  const route = draft.tasks[task];
  const set = (patch: Partial<typeof route>) =>
    onChange({ ...draft, tasks: { ...draft.tasks, [task]: { ...route, ...patch } } });
  const problem = Object.entries(errors).find(([p]) => p.startsWith(`models.tasks.${task}`) || p === "models.tasks");
  return (
    <tr data-field={`models.tasks.${task}`}>
      <td>
        <div>{label}</div>
        <div className="field-help" id={`${id}-help`}>
          {help}
        </div>
      </td>
      <td>
        <select
          className="input input-sm"
          value={route.endpoint}
          disabled={readOnly}
          onChange={(e) => set({ endpoint: e.target.value })}
          aria-label={t("settings.models.endpointOf", { task: label })}
          aria-describedby={`${id}-help`}
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
          readOnly={readOnly}
          onChange={(e) => set({ model: e.target.value })}
          aria-label={t("settings.models.modelOf", { task: label })}
          aria-describedby={`${id}-help`}
        />
        {problem && <div className="form-error">{problem[1]}</div>}
      </td>
    </tr>
  );
}

export function ModelsSection({ endpoints, ...props }: SectionProps & { endpoints: string[] }) {
  const t = useT();
  return (
    <div>
      <p className="field-help">{t("settings.models.help")}</p>
      <div className="table-scroll">
        <table className="table" aria-label={t("settings.section.models")}>
          <thead>
            <tr>
              <th>{t("settings.models.task")}</th>
              <th>{t("settings.models.endpoint")}</th>
              <th>{t("settings.models.model")}</th>
            </tr>
          </thead>
          <tbody>
            {TASKS.map((task) => (
              <TaskRow key={task} task={task} endpoints={endpoints} {...props} />
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

export function PromptsSection({
  draft,
  onChange,
  errors,
  readOnly,
  names,
  defaults,
}: SectionProps & { names: string[]; defaults: Record<PromptLocale, Record<string, string>> }) {
  const t = useT();
  const id = useId();
  const [locale, setLocale] = useState<PromptLocale>("zh-CN");
  const [name, setName] = useState(names[0] ?? "");
  const key = `${locale}:${name}`;
  const text = draft.prompts[key] ?? "";
  const overridden = Object.keys(draft.prompts).filter((k) => draft.prompts[k]);
  const set = (value: string) => onChange({ ...draft, prompts: { ...draft.prompts, [key]: value } });
  return (
    <div>
      <p className="field-help" id={`${id}-help`}>
        {t("settings.prompts.help")}
      </p>
      <div className="toolbar">
        <div className="seg" role="tablist" aria-label={t("settings.prompts.locale")}>
          {PROMPT_LOCALES.map((l) => (
            <button
              key={l}
              type="button"
              role="tab"
              aria-selected={locale === l}
              className={locale === l ? "active" : ""}
              onClick={() => setLocale(l)}
              lang={l}
            >
              {translate(l, "locale.name")}
            </button>
          ))}
        </div>
        <select
          className="input input-sm"
          value={name}
          onChange={(e) => setName(e.target.value)}
          aria-label={t("settings.prompts.template")}
          aria-describedby={`${id}-help`}
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
        <div className="field" data-field={`prompts.${key}`}>
          <label htmlFor={`${id}-text`}>{t("settings.prompts.override")}</label>
          <textarea
            id={`${id}-text`}
            className="input mono"
            rows={10}
            value={text}
            readOnly={readOnly}
            placeholder={t("settings.prompts.empty")}
            onChange={(e) => set(e.target.value)}
            aria-describedby={`${id}-help`}
            data-testid="settings-prompt-text"
          />
          {errors[`prompts.${key}`] && (
            <span className="form-error" data-testid={`field-error-prompts.${key}`}>
              {errors[`prompts.${key}`]}
            </span>
          )}
        </div>
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
