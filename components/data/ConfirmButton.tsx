"use client";
// A destructive button that asks inline ("Delete?" → confirm) instead of opening a browser dialog.
import { useState } from "react";

export function ConfirmButton({
  label,
  confirmLabel,
  onConfirm,
}: {
  label: string;
  confirmLabel: string;
  onConfirm: () => void;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button className="btn btn-sm btn-ghost" onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <button
      className="btn btn-sm btn-danger"
      title={confirmLabel}
      onBlur={() => setAsking(false)}
      onClick={() => {
        setAsking(false);
        onConfirm();
      }}
      autoFocus
    >
      {confirmLabel}
    </button>
  );
}
