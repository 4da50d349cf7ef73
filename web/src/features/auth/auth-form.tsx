/** What the pages before the workspace are made of: a card, a form showing the API's refusal, its fields. */
import type { FormEvent, ReactNode } from "react";
import { useAction } from "../../lib/hooks";
import { busyProps, ErrorText, usePageTitle } from "../../lib/ui";

/** A page of its own, centred, with its heading (and the window's title). */
export function Card({
  title,
  pageTitle,
  intro,
  children,
}: {
  title: string;
  /** The window's title, when the heading would repeat "Tandem". */
  pageTitle?: string;
  intro?: ReactNode;
  children: ReactNode;
}) {
  usePageTitle(pageTitle ?? title);
  return (
    <main className="auth-card">
      <h1>{title}</h1>
      {intro && <p className="muted">{intro}</p>}
      {children}
    </main>
  );
}

/**
 * A form whose submit runs `action` with its fields; the API's error is shown under it. The submit button stays
 * focusable while busy; when the request is refused, the keyboard goes to the field named `retry` (the
 * password after a wrong one), its text selected to type again.
 */
export function AuthForm({
  submit,
  label,
  retry,
  children,
}: {
  /** Runs with a reader of the form's fields by name. */
  submit: (field: (name: string) => string) => Promise<unknown>;
  label: string;
  retry?: string;
  children: ReactNode;
}) {
  const { run, busy, error } = useAction(submit);
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const ok = await run((name) => String(data.get(name) ?? ""));
    const field = retry ? form.elements.namedItem(retry) : null;
    if (!ok && field instanceof HTMLInputElement && form.isConnected) {
      field.focus();
      field.select();
    }
  };
  return (
    <form onSubmit={(event) => void onSubmit(event)} className="stack">
      {children}
      <button type="submit" className="primary" {...busyProps(busy)}>
        {label}
      </button>
      <ErrorText error={error} />
    </form>
  );
}

/** A labelled input of such a form. */
export function Field({
  name,
  label,
  type = "text",
  autoComplete,
  required = true,
  defaultValue,
  minLength,
  readOnly,
  hint,
}: {
  name: string;
  label: string;
  type?: string;
  autoComplete?: string;
  required?: boolean;
  defaultValue?: string;
  minLength?: number;
  readOnly?: boolean;
  /** Said under the field (why it cannot be changed, say). */
  hint?: string;
}) {
  return (
    <label className="field">
      <span>{label}</span>
      <input
        name={name}
        type={type}
        autoComplete={autoComplete}
        required={required}
        defaultValue={defaultValue}
        minLength={minLength}
        readOnly={readOnly}
      />
      {hint && <span className="muted small">{hint}</span>}
    </label>
  );
}

/** The field of a new password: at least 8 characters, as the server asks. */
export function NewPasswordField({ name = "password" }: { name?: string }) {
  return (
    <Field
      name={name}
      label="Password (at least 8 characters)"
      type="password"
      autoComplete="new-password"
      minLength={8}
    />
  );
}
