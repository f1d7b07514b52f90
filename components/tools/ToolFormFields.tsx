"use client";
// The fields of a tool form (lib/client/tool-form.ts) as inputs: texts, numbers, checkboxes or
// three-way choices for booleans, selects for enums, fieldsets for objects, rows for arrays, JSON
// text for the rest. Every label is tied to its input; errors are announced with the field.
import type { ReactNode } from "react";
import { useT } from "../../lib/client/react/use-locale";
import {
  pathKey,
  valueAt,
  type FieldPath,
  type FieldValue,
  type FormField,
  type ObjectValue,
} from "../../lib/client/tool-form";

interface Shared {
  idPrefix: string;
  values: ObjectValue;
  errors: Record<string, string>;
  onChange(path: FieldPath, value: FieldValue): void;
  onAddRow(path: FieldPath, field: FormField & { kind: "array" }): void;
  onRemoveRow(path: FieldPath, index: number): void;
}

export function ToolFormFields({ fields, ...shared }: Shared & { fields: FormField[] }) {
  const t = useT();
  if (!fields.length) return <p className="muted small">{t("run.noArgs")}</p>;
  return (
    <>
      {fields.map((f) => (
        <FieldInput key={f.key} field={f} path={[f.key]} shared={shared} />
      ))}
    </>
  );
}

const inputId = (prefix: string, path: FieldPath) => `${prefix}-${pathKey(path).replace(/[^A-Za-z0-9_-]/g, "_")}`;

function FieldInput({
  field,
  path,
  shared,
  label,
}: {
  field: FormField;
  path: FieldPath;
  shared: Shared;
  label?: string;
}) {
  const t = useT();
  const key = pathKey(path);
  const id = inputId(shared.idPrefix, path);
  const error = shared.errors[key];
  const errorId = `${id}-error`;
  const value = valueAt(shared.values, path);
  const text = typeof value === "string" ? value : "";
  const name = label ?? field.label;
  // An array's rows are its items: their place, not a mark, says they are needed.
  const required = field.required && label === undefined;
  const common = {
    id,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": error ? errorId : undefined,
    "aria-required": required || undefined,
    "data-field": key,
  };
  const set = (next: FieldValue) => shared.onChange(path, next);

  let control: ReactNode;
  switch (field.kind) {
    case "object":
      return (
        <fieldset className="tf-group" data-field={key}>
          <legend>
            {name}
            {required && <Req />}
          </legend>
          {field.description && <p className="muted small text">{field.description}</p>}
          {field.fields.map((f) => (
            <FieldInput key={f.key} field={f} path={[...path, f.key]} shared={shared} />
          ))}
          <FieldError id={errorId} error={error} />
        </fieldset>
      );
    case "array": {
      const rows = Array.isArray(value) ? value : [];
      const canAdd = field.maxItems === undefined || rows.length < field.maxItems;
      const canRemove = rows.length > (field.minItems ?? 0);
      return (
        <fieldset className="tf-group" data-field={key}>
          <legend>
            {name}
            {required && <Req />}
          </legend>
          {field.description && <p className="muted small text">{field.description}</p>}
          <ol className="tf-rows">
            {rows.map((_, i) => (
              <li key={i} className="tf-row">
                <FieldInput field={field.item} path={[...path, i]} shared={shared} label={`${name} ${i + 1}`} />
                <button
                  type="button"
                  className="btn btn-sm"
                  disabled={!canRemove}
                  onClick={() => shared.onRemoveRow(path, i)}
                  aria-label={t("run.removeRow", { name, n: i + 1 })}
                >
                  {t("run.remove")}
                </button>
              </li>
            ))}
          </ol>
          <button type="button" className="btn btn-sm" disabled={!canAdd} onClick={() => shared.onAddRow(path, field)}>
            {t("run.add", { name })}
          </button>
          <FieldError id={errorId} error={error} />
        </fieldset>
      );
    }
    case "string":
      control = field.multiline ? (
        <textarea className="input" rows={3} value={text} onChange={(e) => set(e.target.value)} {...common} />
      ) : (
        <input
          className="input"
          type="text"
          value={text}
          placeholder={field.placeholder}
          onChange={(e) => set(e.target.value)}
          {...common}
        />
      );
      break;
    case "number":
    case "integer":
      control = (
        <input
          className="input"
          type="text"
          inputMode={field.kind === "integer" ? "numeric" : "decimal"}
          value={text}
          placeholder={field.kind}
          onChange={(e) => set(e.target.value)}
          {...common}
        />
      );
      break;
    case "boolean":
      // Required or defaulted: on/off. Optional without a default: "not set" is a third choice.
      control =
        field.required || field.default !== undefined ? (
          <input type="checkbox" checked={value === true} onChange={(e) => set(e.target.checked)} {...common} />
        ) : (
          <select
            className="input"
            value={value === true ? "true" : value === false ? "false" : ""}
            onChange={(e) => set(e.target.value === "" ? null : e.target.value === "true")}
            {...common}
          >
            <option value="">{t("run.notSet")}</option>
            <option value="true">true</option>
            <option value="false">false</option>
          </select>
        );
      break;
    case "enum":
      control = (
        <select className="input" value={text} onChange={(e) => set(e.target.value)} {...common}>
          <option value="">{t("run.notSet")}</option>
          {field.options.map((o, i) => (
            <option key={i} value={String(i)}>
              {o.label}
            </option>
          ))}
        </select>
      );
      break;
    case "json":
      control = (
        <textarea
          className="input mono"
          rows={3}
          value={text}
          placeholder="JSON"
          onChange={(e) => set(e.target.value)}
          {...common}
        />
      );
      break;
  }
  return (
    <div className="tf-field" data-kind={field.kind}>
      <label htmlFor={id}>
        {name}
        {required && <Req />}
        {field.kind === "json" && <span className="muted small"> (JSON)</span>}
      </label>
      {control}
      {field.description && <span className="muted small text">{field.description}</span>}
      <FieldError id={errorId} error={error} />
    </div>
  );
}

function Req() {
  const t = useT();
  return (
    <span className="tf-req" title={t("run.required")}>
      {" "}
      *<span className="sr-only">{t("run.requiredSr")}</span>
    </span>
  );
}

function FieldError({ id, error }: { id: string; error: string | undefined }) {
  if (!error) return null;
  return (
    <span id={id} className="tf-error bad-text small" data-testid="field-error">
      {error}
    </span>
  );
}
