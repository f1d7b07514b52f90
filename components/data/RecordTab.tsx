"use client";
// One editable resource of the bot's data (memories, jargon, persons): a dense table with a search box
// (and person/time filters for memories), add/edit/delete forms, and the conflict message of a stale
// edit with the current values. Everything stored is shown as text, never as markup.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent, type ReactNode } from "react";
import type { EditOutcome } from "../../lib/client/api";
import { botData, type RecordOf } from "../../lib/client/bot-data";
import { useCanChange } from "../../lib/client/react/use-account";
import type { dataTexts } from "../../lib/i18n/data";
import { ConfirmButton } from "./ConfirmButton";
import { describeError, EmptyState, ErrorState, Loading } from "../ui/States";

export type EditableResource = "memories" | "jargon" | "persons";
type Texts = ReturnType<typeof dataTexts>;
type FieldKey = keyof Texts["fields"];

export interface FieldSpec {
  key: FieldKey;
  kind: "text" | "textarea" | "lines" | "tags";
  /** Sent as null when left empty. */
  nullable?: boolean;
  /** Only when adding (the server keeps it afterwards). */
  createOnly?: boolean;
}

export interface TabSpec<R extends EditableResource> {
  resource: R;
  fields: FieldSpec[];
  columns: { label: FieldKey; cell: (r: RecordOf<R>) => ReactNode; className?: string }[];
  idOf: (r: RecordOf<R>) => string;
  /** Person and time filters (memories). */
  filters?: boolean;
}

type FormValues = Record<string, string>;

/** A stored field as form text: lists joined, scalars as written, nothing else expected. */
function fieldText(value: unknown, separator: string): string {
  if (Array.isArray(value)) return value.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(separator);
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return String(value);
  return value === null || value === undefined ? "" : JSON.stringify(value);
}

function toForm(fields: FieldSpec[], record: Record<string, unknown> | null): FormValues {
  const out: FormValues = {};
  for (const f of fields) {
    out[f.key] = fieldText(record?.[f.key], f.kind === "tags" ? ", " : "\n");
  }
  return out;
}

function toBody(fields: FieldSpec[], values: FormValues, creating: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const f of fields) {
    if (f.createOnly && !creating) continue;
    const raw = values[f.key] ?? "";
    if (f.kind === "lines") body[f.key] = raw.split("\n").map((s) => s.trim()).filter(Boolean);
    else if (f.kind === "tags") body[f.key] = raw.split(/[,，、]/).map((s) => s.trim()).filter(Boolean);
    else if (raw.trim() === "") {
      if (f.nullable) body[f.key] = null;
      else if (!creating) body[f.key] = raw;
    } else body[f.key] = raw;
  }
  return body;
}

/** "2026-12-01T10:00" of a datetime-local input → ms since the epoch (local time), or undefined. */
const localToMs = (value: string) => (value ? new Date(value).getTime() : undefined);

export function RecordTab<R extends EditableResource>({ spec, t }: { spec: TabSpec<R>; t: Texts }) {
  const [q, setQ] = useState("");
  const [person, setPerson] = useState("");
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [limit, setLimit] = useState(100);
  const params = { q, limit, ...(spec.filters ? { person, from: localToMs(from), to: localToMs(to) } : {}) };
  const key = ["bot-data", spec.resource, params] as const;
  const list = useQuery({ queryKey: key, queryFn: () => botData.list(spec.resource, params) });
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["bot-data", spec.resource] });
  // null: no form; "new": adding; a record: editing it.
  const [editing, setEditing] = useState<RecordOf<R> | "new" | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Viewers read: no add, edit or delete (the API would answer 403).
  const canChange = useCanChange();

  const remove = async (record: RecordOf<R>) => {
    try {
      await botData.remove(spec.resource, spec.idOf(record));
      setError(null);
    } catch (e) {
      setError(describeError(e));
    }
    await refresh();
  };

  const rows = list.data?.items ?? [];
  return (
    <div className="data-tab" data-testid={`data-tab-${spec.resource}`}>
      <div className="data-toolbar">
        <input
          className="input"
          type="search"
          placeholder={t.search}
          aria-label={t.search}
          value={q}
          onChange={(e) => setQ(e.target.value)}
          data-testid="data-search"
        />
        {spec.filters && (
          <>
            <input
              className="input"
              placeholder={t.person}
              aria-label={t.person}
              value={person}
              onChange={(e) => setPerson(e.target.value)}
            />
            <label className="field-inline">
              {t.from}
              <input className="input" type="datetime-local" value={from} onChange={(e) => setFrom(e.target.value)} />
            </label>
            <label className="field-inline">
              {t.to}
              <input className="input" type="datetime-local" value={to} onChange={(e) => setTo(e.target.value)} />
            </label>
          </>
        )}
        {canChange && (
          <button className="btn btn-primary" onClick={() => setEditing("new")} data-testid="data-add">
            {t.add}
          </button>
        )}
      </div>
      {error && (
        <div className="state state-error" role="alert">
          {error}
        </div>
      )}
      {editing !== null && canChange && (
        <RecordForm
          key={editing === "new" ? "new" : `${spec.idOf(editing)}:${(editing as { version: number }).version}`}
          spec={spec}
          t={t}
          record={editing === "new" ? null : editing}
          onDone={async () => {
            setEditing(null);
            await refresh();
          }}
          onEditCurrent={(current) => setEditing(current)}
        />
      )}
      {list.isPending && <Loading label="…" />}
      {list.isError && <ErrorState title={t.loadError} error={list.error} />}
      {list.isSuccess && rows.length === 0 && <EmptyState title={t.empty} />}
      {rows.length > 0 && (
        <table className="table data-table">
          <thead>
            <tr>
              {spec.columns.map((c) => (
                <th key={c.label} className={c.className}>
                  {t.fields[c.label]}
                </th>
              ))}
              {canChange && <th />}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={spec.idOf(r)} data-testid="data-row">
                {spec.columns.map((c) => (
                  <td key={c.label} className={c.className}>
                    {c.cell(r)}
                  </td>
                ))}
                {canChange && (
                  <td className="data-actions">
                    <button className="btn btn-sm" onClick={() => setEditing(r)}>
                      {t.edit}
                    </button>
                    <ConfirmButton label={t.delete} confirmLabel={t.confirmDelete} onConfirm={() => void remove(r)} />
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {list.data?.nextOffset !== null && list.data?.nextOffset !== undefined && (
        <button className="btn btn-sm" onClick={() => setLimit((n) => Math.min(500, n + 100))}>
          {t.more}
        </button>
      )}
    </div>
  );
}

function RecordForm<R extends EditableResource>({
  spec,
  t,
  record,
  onDone,
  onEditCurrent,
}: {
  spec: TabSpec<R>;
  t: Texts;
  record: RecordOf<R> | null;
  onDone: () => Promise<void>;
  onEditCurrent: (current: RecordOf<R>) => void;
}) {
  const creating = record === null;
  const fields = spec.fields.filter((f) => creating || !f.createOnly);
  const [values, setValues] = useState<FormValues>(() => toForm(fields, record));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [conflict, setConflict] = useState<{ message: string; current: RecordOf<R> } | null>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = toBody(fields, values, creating);
      const outcome: EditOutcome<RecordOf<R>> = creating
        ? await botData.create(spec.resource, body)
        : await botData.update(spec.resource, spec.idOf(record), {
            ...body,
            ifVersion: (record as { version: number }).version,
          });
      if (outcome.ok) await onDone();
      else setConflict({ message: outcome.conflict, current: outcome.current });
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="panel data-form" onSubmit={(e) => void submit(e)} data-testid="data-form">
      {fields.map((f) => (
        <label key={f.key} className="field">
          <span className="sub">{t.fields[f.key]}</span>
          {f.kind === "textarea" || f.kind === "lines" ? (
            <textarea
              className="input"
              rows={f.kind === "lines" ? 3 : 2}
              name={f.key}
              value={values[f.key]}
              onChange={(e) => setValues({ ...values, [f.key]: e.target.value })}
            />
          ) : (
            <input
              className="input"
              name={f.key}
              value={values[f.key]}
              onChange={(e) => setValues({ ...values, [f.key]: e.target.value })}
            />
          )}
        </label>
      ))}
      {error && (
        <div className="state state-error" role="alert">
          {error}
        </div>
      )}
      {conflict && (
        <div className="state state-error data-conflict" role="alert" data-testid="data-conflict">
          <div>{t.conflict}</div>
          <dl className="data-current">
            {fields.map((f) => {
              const value = (conflict.current as Record<string, unknown>)[f.key];
              return (
                <div key={f.key}>
                  <dt>{t.fields[f.key]}</dt>
                  <dd>{fieldText(value, ", ")}</dd>
                </div>
              );
            })}
          </dl>
          {!creating && (
            <button type="button" className="btn btn-sm" onClick={() => onEditCurrent(conflict.current)}>
              {t.conflictKeep}
            </button>
          )}
        </div>
      )}
      <div className="data-form-actions">
        <button className="btn btn-primary" type="submit" disabled={busy} data-testid="data-save">
          {t.save}
        </button>
        <button className="btn btn-ghost" type="button" onClick={() => void onDone()}>
          {t.cancel}
        </button>
      </div>
    </form>
  );
}
