/**
 * Creating and editing a staff member: name, provider, the provider's settings (the model of a `modelrouter`
 * staff member; the default repository and ref of an `agent` one) and its instructions. Creating shows the
 * `sa_` token once.
 */
import { type FormEvent, useState } from "react";
import type { Provider, ServiceAccount, ServiceAccountBody } from "../../../../src/api-types";
import { ShownOnce } from "../../lib/dialogs";
import { useAction } from "../../lib/hooks";
import { ErrorText, FormButtons, Modal, toast } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { createServiceAccount, patchServiceAccount } from "./api";
import { DEFAULT_MODEL, MAX_INSTRUCTIONS, PROVIDERS } from "./model";

/**
 * The organization's instructions to the staff member, with a count of what is left: the server counts
 * characters as code points (an emoji is one), so the count here does too rather than cap the field in
 * UTF-16 units.
 */
function InstructionsField({ initial }: { initial: string }) {
  const [text, setText] = useState(initial);
  const used = [...text].length;
  const over = used > MAX_INSTRUCTIONS;
  return (
    <div className="field">
      <div className="row instructions-head">
        <label htmlFor="staff-instructions" className="field-label grow">
          Instructions
        </label>
        <small id="staff-instructions-count" className={over ? "instructions-count over" : "instructions-count muted"}>
          {used.toLocaleString()} / {MAX_INSTRUCTIONS.toLocaleString()}
        </small>
      </div>
      <textarea
        id="staff-instructions"
        name="instructions"
        rows={5}
        value={text}
        onChange={(e) => setText(e.target.value)}
        placeholder="You are our release manager; answer briefly"
        aria-describedby="staff-instructions-hint staff-instructions-count"
        aria-invalid={over || undefined}
      />
      <small id="staff-instructions-hint" className="muted">
        Given to the staff member before everything else, in every reply.
      </small>
    </div>
  );
}

/** The fields of both forms; `account` fills them for an edit. */
function Fields({
  account,
  provider,
  setProvider,
}: {
  account?: ServiceAccount;
  provider: Provider;
  setProvider: (p: Provider) => void;
}) {
  return (
    <>
      <div className="field">
        <label className="field">
          <span>Name</span>
          <input
            name="name"
            required
            maxLength={100}
            defaultValue={account?.name ?? ""}
            placeholder="Ada"
            aria-describedby="staff-name-hint"
          />
        </label>
        <small id="staff-name-hint" className="muted">
          People mention it as @name in chat; unique in the organization.
        </small>
      </div>
      <fieldset className="provider-choice">
        <legend>Provider</legend>
        {(Object.keys(PROVIDERS) as Provider[]).map((value) => (
          <label key={value} className={`provider-option${provider === value ? " selected" : ""}`}>
            <input
              type="radio"
              name="provider"
              value={value}
              checked={provider === value}
              onChange={() => setProvider(value)}
            />
            <span>
              <strong>{PROVIDERS[value]}</strong> <code>{value}</code>
              <br />
              <span className="muted small">
                {value === "modelrouter"
                  ? "Answers in chat and tasks through a language model, with tools to read the space and propose changes."
                  : "Hands each request to a cloud coding agent working on a git repository, and posts its answer."}
              </span>
            </span>
          </label>
        ))}
      </fieldset>
      {provider === "modelrouter" ? (
        <div className="field">
          <label className="field">
            <span>Model</span>
            <input
              name="modelrouter_model"
              maxLength={500}
              defaultValue={account?.provider === "modelrouter" ? account.modelrouter_model : ""}
              placeholder={DEFAULT_MODEL}
              aria-describedby="staff-model-hint"
              spellCheck={false}
              required={account !== undefined}
            />
          </label>
          <small id="staff-model-hint" className="muted">
            {account
              ? "A model id of the gateway."
              : `A model id of the gateway. Empty: the server's default model (${DEFAULT_MODEL} unless the server sets another).`}
          </small>
        </div>
      ) : (
        <div className="form-grid">
          <label className="field">
            <span>Default repository</span>
            <input
              name="agent_default_repo_url"
              maxLength={500}
              defaultValue={account?.agent_default_repo_url ?? ""}
              placeholder="https://github.com/team/repo"
              spellCheck={false}
            />
          </label>
          <label className="field">
            <span>Branch, tag or commit</span>
            <input
              name="agent_default_ref"
              maxLength={500}
              defaultValue={account?.agent_default_ref ?? ""}
              placeholder="main"
              spellCheck={false}
            />
          </label>
          <small className="muted span-2">Empty: the space's git repository (Space settings), else none.</small>
        </div>
      )}
      <InstructionsField initial={account?.instructions ?? ""} />
    </>
  );
}

/** The body of a create or PATCH from the form: `""` clears a field, as the API defines. */
function bodyOf(form: FormData, provider: Provider, editing: boolean): ServiceAccountBody {
  const text = (name: string) => String(form.get(name) ?? "").trim();
  // The instructions are sent as typed, line breaks and all; `""` clears them.
  const body: ServiceAccountBody = {
    name: text("name"),
    provider,
    instructions: String(form.get("instructions") ?? ""),
  };
  if (provider === "modelrouter") {
    const model = text("modelrouter_model");
    // Omitted on a create, the server's default model applies; an edit requires the field.
    if (model || editing) body.modelrouter_model = model;
  } else {
    body.agent_default_repo_url = text("agent_default_repo_url");
    body.agent_default_ref = text("agent_default_ref");
  }
  return body;
}

/** Creates a staff member, then shows its token once. */
export function CreateStaff({ onClose, onCreated }: { onClose: () => void; onCreated: (a: ServiceAccount) => void }) {
  const ws = useWorkspace();
  const [provider, setProvider] = useState<Provider>("modelrouter");
  const [created, setCreated] = useState<{ account: ServiceAccount; token: string } | null>(null);
  const create = useAction(async (form: FormData) => {
    const answer = await createServiceAccount(ws.base, bodyOf(form, provider, false));
    setCreated({ account: answer.service_account, token: answer.token });
    onCreated(answer.service_account);
    void ws.reloadMembers().catch(() => {});
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void create.run(new FormData(event.currentTarget));
  };

  if (created)
    return (
      // A new dialog (not the form's, retitled), so focus starts on the token, selected for copying.
      <Modal key="token" title={`${created.account.name}'s token`} onClose={onClose}>
        <div className="stack">
          <p>
            <strong>{created.account.name}</strong> is on the staff. Its token lets a script or an integration act as{" "}
            {created.account.name} over the API (<code>Authorization: Bearer sa_…</code>).
          </p>
          <ShownOnce
            label="Token"
            value={created.token}
            warning="This is the only time the token is shown: Tandem keeps only a hash of it. If it is lost, delete this staff member and create a new one."
          />
          <div className="row end">
            <button type="button" className="primary" onClick={onClose}>
              I have saved it
            </button>
          </div>
        </div>
      </Modal>
    );

  return (
    <Modal title="New staff member" onClose={onClose}>
      {/* A refusal is about what was sent: it goes as soon as the form is changed, not at the next submit. */}
      <form className="stack" onSubmit={submit} onChange={create.clear}>
        <Fields provider={provider} setProvider={setProvider} />
        <ErrorText error={create.error} />
        <FormButtons onCancel={onClose} disabled={create.busy} label="Create staff member" />
      </form>
    </Modal>
  );
}

/** Edits a staff member's settings in place (a panel of its page). */
export function EditStaff({ account, onSaved }: { account: ServiceAccount; onSaved: (a: ServiceAccount) => void }) {
  const ws = useWorkspace();
  const [provider, setProvider] = useState<Provider>(account.provider);
  const save = useAction(async (form: FormData) => {
    const saved = await patchServiceAccount(ws.base, account.id, bodyOf(form, provider, true));
    onSaved(saved);
    toast(`Saved ${saved.name}`);
    if (saved.name !== account.name) void ws.reloadMembers().catch(() => {});
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void save.run(new FormData(event.currentTarget));
  };
  return (
    <form className="stack" onSubmit={submit} onChange={save.clear} aria-label="Staff settings">
      <Fields account={account} provider={provider} setProvider={setProvider} />
      <ErrorText error={save.error} />
      <div className="row">
        <button type="submit" className="primary" disabled={save.busy}>
          Save changes
        </button>
      </div>
    </form>
  );
}
