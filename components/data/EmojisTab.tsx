"use client";
// The emoji library: upload (file → base64) with description and emotion tags, disable/enable, delete.
// A disabled emoji stays listed but send_emoji never offers it.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { botData, fileToBase64, type RecordOf } from "../../lib/client/bot-data";
import { useCanChange } from "../../lib/client/react/use-account";
import { EMOJI_MIME_TYPES, type EmojiMimeType } from "../../lib/data/schemas";
import type { dataTexts } from "../../lib/i18n/data";
import { Badge } from "../ui/Badge";
import { ConfirmButton } from "./ConfirmButton";
import { describeError, EmptyState, ErrorState, Loading } from "../ui/States";

type Texts = ReturnType<typeof dataTexts>;
type Emoji = RecordOf<"emojis">;

const isEmojiType = (type: string): type is EmojiMimeType => (EMOJI_MIME_TYPES as readonly string[]).includes(type);
const tags = (raw: string) =>
  raw
    .split(/[,，、]/)
    .map((s) => s.trim())
    .filter(Boolean);

export function EmojisTab({ t }: { t: Texts }) {
  const list = useQuery({ queryKey: ["bot-data", "emojis"], queryFn: () => botData.list("emojis") });
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["bot-data", "emojis"] });
  const [error, setError] = useState<string | null>(null);
  const [conflict, setConflict] = useState<Emoji | null>(null);
  // Viewers read: no upload, switch or delete.
  const canChange = useCanChange();

  const act = async (run: () => Promise<unknown>) => {
    try {
      await run();
      setError(null);
    } catch (e) {
      setError(describeError(e));
    }
    await refresh();
  };
  const toggle = (e: Emoji) =>
    act(async () => {
      const outcome = await botData.update("emojis", e.id, { disabled: !e.disabled, ifVersion: e.version });
      setConflict(outcome.ok ? null : outcome.current);
    });
  const remove = (e: Emoji) => void act(() => botData.remove("emojis", e.id));

  const rows = list.data?.items ?? [];
  return (
    <div className="data-tab" data-testid="data-tab-emojis">
      {canChange && <UploadForm t={t} onUploaded={refresh} />}
      {error && (
        <div className="state state-error" role="alert">
          {error}
        </div>
      )}
      {conflict && (
        <div className="state state-error" role="alert" data-testid="data-conflict">
          {t.conflict} {conflict.description} · {conflict.emotions.join(", ")} · {conflict.disabled ? t.disabled : ""}
        </div>
      )}
      {list.isPending && <Loading label="…" />}
      {list.isError && <ErrorState title={t.loadError} error={list.error} />}
      {list.isSuccess && rows.length === 0 && <EmptyState title={t.empty} />}
      {rows.length > 0 && (
        <table className="table data-table">
          <thead>
            <tr>
              <th />
              <th>{t.fields.description}</th>
              <th>{t.fields.emotions}</th>
              <th className="num">{t.fields.count}</th>
              {canChange && <th />}
            </tr>
          </thead>
          <tbody>
            {rows.map((e) => (
              <tr key={e.id} data-testid="data-row" className={e.disabled ? "data-disabled" : ""}>
                <td>
                  <img className="data-emoji" src={e.imageUrl} alt={e.description} width={40} height={40} />
                </td>
                <td>
                  {e.description} {e.disabled && <Badge tone="muted">{t.disabled}</Badge>}
                </td>
                <td>{e.emotions.join(", ")}</td>
                <td className="num">{e.useCount}</td>
                {canChange && (
                  <td className="data-actions">
                    <button className="btn btn-sm" onClick={() => void toggle(e)}>
                      {e.disabled ? t.enable : t.disable}
                    </button>
                    <ConfirmButton label={t.delete} confirmLabel={t.confirmDelete} onConfirm={() => remove(e)} />
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function UploadForm({ t, onUploaded }: { t: Texts; onUploaded: () => Promise<void> }) {
  const [file, setFile] = useState<File | null>(null);
  const [description, setDescription] = useState("");
  const [emotions, setEmotions] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (!file) return;
    const form = e.currentTarget;
    setBusy(true);
    try {
      const mimeType = isEmojiType(file.type) ? file.type : "image/png"; // the server checks the bytes either way
      const outcome = await botData.create("emojis", {
        imageBase64: await fileToBase64(file),
        mimeType,
        description,
        emotions: tags(emotions),
      });
      if (outcome.ok) {
        setDescription("");
        setEmotions("");
        setFile(null);
        form.reset();
        setError(null);
      }
      await onUploaded();
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="panel data-form" onSubmit={(e) => void submit(e)} data-testid="emoji-upload">
      <label className="field">
        <span className="sub">{t.fields.image}</span>
        <input type="file" accept={EMOJI_MIME_TYPES.join(",")} onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
      </label>
      <label className="field">
        <span className="sub">{t.fields.description}</span>
        <input className="input" value={description} onChange={(e) => setDescription(e.target.value)} />
      </label>
      <label className="field">
        <span className="sub">{t.fields.emotions}</span>
        <input className="input" value={emotions} onChange={(e) => setEmotions(e.target.value)} />
      </label>
      {error && (
        <div className="state state-error" role="alert">
          {error}
        </div>
      )}
      <div className="data-form-actions">
        <button className="btn btn-primary" type="submit" disabled={busy || !file}>
          {t.upload}
        </button>
      </div>
    </form>
  );
}
