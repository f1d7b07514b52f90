"use client";
// Which chats the bots serve (platforms.onebot groups / users / private), changed live: the lists as
// typed ids, a reason (audited), and the audience the page loaded sent along, so a change another
// operator made meanwhile is refused and shown instead of silently overwritten.
import { useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api } from "../../lib/client/api";
import { parseIdList } from "../../lib/client/platforms";
import { queryKeys } from "../../lib/client/query-keys";
import { useCanChange } from "../../lib/client/react/use-account";
import { useT } from "../../lib/client/react/use-locale";
import type { OneBotAudience } from "../../lib/platforms/status";
import { describeError } from "../ui/States";

type ListKey = "groupsAllow" | "groupsDeny" | "usersAllow" | "usersDeny";
type Texts = Record<ListKey, string>;

function textsOf(a: OneBotAudience): Texts {
  return {
    groupsAllow: a.groups.allow.join("\n"),
    groupsDeny: a.groups.deny.join("\n"),
    usersAllow: a.users.allow.join("\n"),
    usersDeny: a.users.deny.join("\n"),
  };
}

const LISTS: ListKey[] = ["groupsAllow", "groupsDeny", "usersAllow", "usersDeny"];

export function AudienceForm({ audience }: { audience: OneBotAudience }) {
  const t = useT();
  const queryClient = useQueryClient();
  const canChange = useCanChange();
  // The audience the operator edits from: replaced only on a save or an explicit reload.
  const [base, setBase] = useState(audience);
  const [texts, setTexts] = useState(() => textsOf(audience));
  const [privateOn, setPrivateOn] = useState(audience.private);
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [conflict, setConflict] = useState<OneBotAudience | null>(null);
  const [saved, setSaved] = useState(false);

  const parsed = Object.fromEntries(LISTS.map((k) => [k, parseIdList(texts[k])])) as Record<
    ListKey,
    ReturnType<typeof parseIdList>
  >;
  const invalid = LISTS.flatMap((k) => parsed[k].invalid);

  const reset = (to: OneBotAudience) => {
    setBase(to);
    setTexts(textsOf(to));
    setPrivateOn(to.private);
    setConflict(null);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (invalid.length || !reason.trim()) return;
    setBusy(true);
    setProblem(null);
    setSaved(false);
    try {
      const outcome = await api.setAudience({
        groups: { allow: parsed.groupsAllow.ids, deny: parsed.groupsDeny.ids },
        users: { allow: parsed.usersAllow.ids, deny: parsed.usersDeny.ids },
        private: privateOn,
        reason: reason.trim(),
        base,
      });
      if (outcome.ok) {
        reset(outcome.record);
        setReason("");
        setSaved(true);
        void queryClient.invalidateQueries({ queryKey: queryKeys.platforms });
      } else setConflict(outcome.current);
    } catch (error) {
      setProblem(describeError(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="panel audience-form" data-testid="audience-form">
      <h2>{t("platforms.audience.title")}</h2>
      <p className="muted small">{t("platforms.audience.help")}</p>
      <form onSubmit={(e) => void submit(e)}>
        <fieldset className="data-form" disabled={!canChange || busy}>
          {LISTS.map((key) => (
            <label key={key} className="field">
              <span className="sub">{t(`platforms.audience.${key}`)}</span>
              <textarea
                className="input mono"
                rows={3}
                name={key}
                value={texts[key]}
                onChange={(e) => setTexts({ ...texts, [key]: e.target.value })}
              />
            </label>
          ))}
          <label className="field-inline">
            <input type="checkbox" checked={privateOn} onChange={(e) => setPrivateOn(e.target.checked)} />
            {t("platforms.audience.private")}
          </label>
          {/* A viewer reads the lists (disabled above); saving is not theirs to offer. */}
          {canChange && (
            <>
              <label className="field">
                <span className="sub">{t("platforms.audience.reason")}</span>
                <input className="input" name="reason" value={reason} onChange={(e) => setReason(e.target.value)} />
              </label>
              <div className="data-form-actions">
                <button className="btn primary" type="submit" disabled={invalid.length > 0 || !reason.trim()}>
                  {t("platforms.audience.save")}
                </button>
              </div>
            </>
          )}
        </fieldset>
      </form>
      {invalid.length > 0 && (
        <div className="form-error" role="alert" data-testid="audience-invalid">
          {t("platforms.audience.invalid", { ids: invalid.slice(0, 5).join(", ") })}
        </div>
      )}
      {problem && (
        <div className="state state-error" role="alert">
          {problem}
        </div>
      )}
      {conflict && (
        <div className="state state-error" role="alert" data-testid="audience-conflict">
          {t("platforms.audience.conflict")}{" "}
          <button className="btn" type="button" onClick={() => reset(conflict)}>
            {t("platforms.audience.reload")}
          </button>
        </div>
      )}
      {saved && (
        <div className="muted small" role="status" data-testid="audience-saved">
          {t("platforms.audience.saved")}
        </div>
      )}
    </section>
  );
}
