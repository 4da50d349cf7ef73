/**
 * Creating or editing an automation: its name, kind and status, the configuration of its kind as fields (not
 * JSON), and the write-only OAuth token of a social post. A webhook's secret, answered once when it is created,
 * is shown in the same dialog with its URL and a signed example request.
 */
import { type FormEvent, useId, useState } from "react";
import type { Automation, AutomationBody, AutomationChanges, AutomationKind } from "../../../../src/api-types";
import { useAction, useLoad } from "../../lib/hooks";
import { ErrorText, FormButtons, Modal, toast } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { getBoard } from "../board/api";
import { listRooms } from "../chat/api";
import { createAutomation, patchAutomation } from "./api";
import { ConfigFields } from "./ConfigFields";
import { type ConfigDraft, configToSave, initialDraft, sameConfig } from "./config-draft";
import { KIND_HINTS, KINDS, otherSettings, STATUSES } from "./model";
import { OAuthTokenField, type TokenChoice } from "./OAuthTokenField";
import { WebhookSecret } from "./WebhookPanel";

const SETTABLE = ["draft", "pending_approval", "active", "paused"] as const;

/** What the Status select offers, in words that say what each does. */
const STATUS_CHOICES: Record<(typeof SETTABLE)[number], string> = {
  draft: `${STATUSES.draft}: not running, not submitted`,
  pending_approval: `${STATUSES.pending_approval}: a person approves it first`,
  active: `${STATUSES.active}: runs from now on`,
  paused: `${STATUSES.paused}: kept, not running`,
};

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
  const id = useId();
  const [kind, setKind] = useState<AutomationKind>(automation?.kind ?? "scheduled");
  const [draft, setDraft] = useState<ConfigDraft>(() => initialDraft(automation?.config));
  const [token, setToken] = useState<TokenChoice>("keep");
  const [created, setCreated] = useState<{ automation: Automation; secret: string } | null>(null);
  const rooms = useLoad(listRooms, ws.base, spaceId);
  const board = useLoad(getBoard, ws.base, spaceId);

  const set = (key: string, value: unknown) => {
    save.clear();
    setDraft((old) => {
      const next = { ...old };
      if (value === undefined) delete next[key];
      else next[key] = value;
      return next;
    });
  };

  const save = useAction(async (form: FormData) => {
    const config = configToSave(kind, draft);
    const oauth = String(form.get("oauth_token") ?? "");
    // One of the select's options, each a status a person may set.
    const status = String(form.get("status") ?? "draft") as (typeof SETTABLE)[number];
    const name = String(form.get("name"));
    if (!automation) {
      const body: AutomationBody = { name, kind, config, status };
      if (oauth) body.oauth_token = oauth;
      const answer = await createAutomation(ws.base, spaceId, body);
      onSaved(answer.automation);
      toast(`Created “${answer.automation.name}”`);
      // The secret is answered this once: the dialog stays to show it.
      if (answer.webhook_secret) return setCreated({ automation: answer.automation, secret: answer.webhook_secret });
    } else {
      const body: AutomationChanges = {};
      if (name !== automation.name) body.name = name;
      if (!sameConfig(config, automation.config)) body.config = config;
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

  if (created)
    return (
      <Modal title={`Webhook “${created.automation.name}” created`} onClose={onClose} wide>
        <WebhookSecret automationId={created.automation.id} secret={created.secret} onDone={onClose} />
      </Modal>
    );

  // A rejected automation can be sent back as a draft or for approval; `rejected` itself is not settable.
  const currentStatus = automation && automation.status !== "rejected" ? automation.status : "draft";
  const others = Object.keys(otherSettings(draft));
  const showToken = kind === "social_post" || automation?.has_oauth_token === true;

  return (
    <Modal title={automation ? `Edit “${automation.name}”` : "New automation"} onClose={onClose} wide>
      <form className="stack automation-form" onSubmit={submit} onChange={() => save.clear()}>
        <label className="field">
          <span>Name</span>
          <input name="name" required maxLength={200} defaultValue={automation?.name ?? ""} />
        </label>
        <div className="form-grid">
          {/* The hint sits under the Kind it explains, also when a phone stacks the two selects. */}
          <div className="field">
            <label className="field">
              <span>Kind</span>
              <select
                name="kind"
                value={kind}
                aria-describedby={`${id}-kind-hint`}
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
            <p id={`${id}-kind-hint`} className="small muted">
              {KIND_HINTS[kind]}
            </p>
          </div>
          <label className="field">
            <span>Status</span>
            <select name="status" defaultValue={currentStatus}>
              {SETTABLE.map((value) => (
                <option key={value} value={value}>
                  {STATUS_CHOICES[value]}
                </option>
              ))}
            </select>
          </label>
        </div>
        <ConfigFields
          kind={kind}
          draft={draft}
          set={set}
          rooms={rooms.data ?? []}
          columns={board.data?.columns ?? []}
        />
        <ErrorText error={rooms.error ?? board.error} />
        {others.length > 0 && (
          <p className="muted small">
            Also kept as they are: {others.flatMap((key, i) => [i > 0 ? ", " : "", <code key={key}>{key}</code>])}.
          </p>
        )}
        {typeof draft.proposal_note === "string" && draft.proposal_note && (
          <p className="muted small">The proposal note of the staff member who proposed it is kept as it is.</p>
        )}
        {showToken && (
          <OAuthTokenField
            stored={automation?.has_oauth_token === true}
            choice={token}
            onChoice={setToken}
            required={kind === "social_post"}
          />
        )}
        <ErrorText error={save.error} />
        <FormButtons onCancel={onClose} disabled={save.busy} label={automation ? "Save" : "Create automation"} />
      </form>
    </Modal>
  );
}
