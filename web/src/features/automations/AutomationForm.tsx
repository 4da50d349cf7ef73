/**
 * Creating or editing an automation: name, kind, status, configuration as JSON, and the write-only OAuth token
 * (set, replace or remove; the stored one is never shown, only whether there is one).
 */
import { type FormEvent, useId, useState } from "react";
import type { Automation, AutomationBody, AutomationChanges, AutomationKind } from "../../../../src/api-types";
import { useAction } from "../../lib/hooks";
import { ErrorText, FormButtons, Modal, toast } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { createAutomation, patchAutomation } from "./api";
import { KINDS, STATUSES } from "./model";

/** What a configuration of each kind may look like (config is free-form JSON; these are hints only). */
const EXAMPLES: Record<AutomationKind, string> = {
  scheduled: '{\n  "cron": "0 9 * * 1-5",\n  "channel": "#general"\n}',
  webhook: '{\n  "url": "https://example.com/hooks/deploy"\n}',
  social_post: '{\n  "network": "mastodon",\n  "text": "We just shipped!"\n}',
  reverse_tunnel: '{\n  "local_port": 3000\n}',
};

const SETTABLE = ["draft", "pending_approval", "active", "paused"] as const;

/** Parses the configuration field: empty is `{}`, anything but a JSON object is refused in words. */
function parseConfig(text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`Configuration is not valid JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new Error('Configuration must be a JSON object, like {"cron": "0 9 * * *"}');
  return value as Record<string, unknown>;
}

/** The create / edit dialog. `automation` absent: a new one in `spaceId`. */
export function AutomationForm({
  spaceId,
  automation,
  onClose,
  onSaved,
}: {
  spaceId: string;
  automation?: Automation;
  onClose: () => void;
  onSaved: (automation: Automation) => void;
}) {
  const ws = useWorkspace();
  const ids = useId();
  const [kind, setKind] = useState<AutomationKind>(automation?.kind ?? "scheduled");
  // The proposal note is the proposer's words, not configuration to edit: kept aside and put back on save.
  const { proposal_note: note, ...editable } = automation?.config ?? {};
  const initialConfig = Object.keys(editable).length ? JSON.stringify(editable, null, 2) : "";
  const [token, setToken] = useState<"keep" | "replace" | "clear">("keep");

  const save = useAction(async (form: FormData) => {
    const config = parseConfig(String(form.get("config") ?? ""));
    const oauth = String(form.get("oauth_token") ?? "");
    // One of the select's options, each a status a person may set.
    const status = String(form.get("status") ?? "draft") as (typeof SETTABLE)[number];
    const name = String(form.get("name"));
    if (!automation) {
      const body: AutomationBody = { name, kind, config, status };
      if (oauth) body.oauth_token = oauth;
      const created = await createAutomation(ws.base, spaceId, body);
      onSaved(created);
      toast(`Created “${created.name}”`);
    } else {
      const body: AutomationChanges = {};
      if (name !== automation.name) body.name = name;
      if (String(form.get("config") ?? "") !== initialConfig)
        body.config = note === undefined ? config : { ...config, proposal_note: note };
      if (status !== automation.status) body.status = status;
      if (token === "replace" || (!automation.has_oauth_token && oauth)) {
        if (!oauth) throw new Error("Enter the new OAuth token, or keep the stored one");
        body.oauth_token = oauth;
      }
      if (token === "clear") body.oauth_token = null;
      if (Object.keys(body).length > 0) {
        const saved = await patchAutomation(ws.base, spaceId, automation.id, body);
        onSaved(saved);
        toast(`Saved “${saved.name}”`);
      }
    }
    onClose();
  });

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void save.run(new FormData(event.currentTarget));
  };

  // A rejected automation can be sent back as a draft or for approval; `rejected` itself is not settable.
  const currentStatus = automation && automation.status !== "rejected" ? automation.status : "draft";
  const showTokenInput = !automation?.has_oauth_token || token === "replace";

  return (
    <Modal title={automation ? `Edit “${automation.name}”` : "New automation"} onClose={onClose} wide>
      <form className="stack" onSubmit={submit}>
        <label className="field">
          <span>Name</span>
          <input name="name" required maxLength={200} defaultValue={automation?.name ?? ""} />
        </label>
        <div className="form-grid">
          <label className="field">
            <span>Kind</span>
            <select
              name="kind"
              value={kind}
              onChange={(e) => setKind(e.target.value as AutomationKind)}
              disabled={automation !== undefined}
              title={automation ? "The kind of an automation is fixed when it is created" : undefined}
            >
              {Object.entries(KINDS).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            <span>Status</span>
            <select name="status" defaultValue={currentStatus}>
              {SETTABLE.map((value) => (
                <option key={value} value={value}>
                  {STATUSES[value]}
                </option>
              ))}
            </select>
          </label>
        </div>
        <label className="field">
          <span>Configuration (JSON)</span>
          <textarea
            name="config"
            rows={7}
            className="mono"
            spellCheck={false}
            defaultValue={initialConfig}
            placeholder={EXAMPLES[kind]}
          />
        </label>
        {typeof note === "string" && note && (
          <p className="muted small">The proposal note of the staff member who proposed it is kept as it is.</p>
        )}
        <fieldset className="oauth">
          <legend>OAuth token</legend>
          <p className="muted small">
            Write-only: stored encrypted and never shown again, not even to you.
            {automation?.has_oauth_token && " A token is stored now."}
          </p>
          {automation?.has_oauth_token && (
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
                    checked={token === value}
                    onChange={() => setToken(value)}
                  />
                  {label}
                </label>
              ))}
            </div>
          )}
          {showTokenInput && (
            <label className="field" htmlFor={`${ids}-oauth`}>
              <span>{automation?.has_oauth_token ? "New OAuth token" : "OAuth token (optional)"}</span>
              <input
                id={`${ids}-oauth`}
                name="oauth_token"
                type="password"
                autoComplete="off"
                maxLength={8192}
                required={token === "replace"}
              />
            </label>
          )}
        </fieldset>
        <ErrorText error={save.error} />
        <FormButtons onCancel={onClose} disabled={save.busy} label={automation ? "Save" : "Create automation"} />
      </form>
    </Modal>
  );
}
