/**
 * The write-only OAuth token of an automation in its form: set one, or keep, replace or remove the stored one.
 * The stored token is never shown, only whether there is one.
 */
import { useId } from "react";

/** What to do with a stored token. */
export type TokenChoice = "keep" | "replace" | "clear";

/** The fieldset; the new token's input is named `oauth_token` in the form. */
export function OAuthTokenField({
  stored,
  choice,
  onChoice,
  required = false,
}: {
  stored: boolean;
  choice: TokenChoice;
  onChoice: (choice: TokenChoice) => void;
  required?: boolean;
}) {
  const id = useId();
  const showInput = !stored || choice === "replace";
  return (
    <fieldset className="oauth">
      <legend>OAuth token</legend>
      <p className="muted small">
        Sent as <code>Authorization: Bearer …</code> with each post. Write-only: stored encrypted and never shown again,
        not even to you.
        {stored && " A token is stored now."}
      </p>
      {stored && (
        <div className="row wrap" role="radiogroup" aria-label="Stored OAuth token">
          {(
            [
              ["keep", "Keep it"],
              ["replace", "Replace it"],
              ["clear", "Remove it"],
            ] as const
          ).map(([value, label]) => (
            <label key={value} className="check">
              <input
                type="radio"
                name="token_choice"
                value={value}
                checked={choice === value}
                onChange={() => onChoice(value)}
              />
              {label}
            </label>
          ))}
        </div>
      )}
      {showInput && (
        <label className="field" htmlFor={`${id}-oauth`}>
          <span>{stored ? "New OAuth token" : required ? "OAuth token" : "OAuth token (optional)"}</span>
          <input
            id={`${id}-oauth`}
            name="oauth_token"
            type="password"
            autoComplete="off"
            maxLength={8192}
            required={choice === "replace"}
          />
        </label>
      )}
      {!stored && required && (
        <p className="small muted">Without one it cannot post: it shows “oauth_token: required” until one is set.</p>
      )}
    </fieldset>
  );
}
