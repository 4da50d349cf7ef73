/**
 * Provider keys: the organization's key for the model gateway and for cloud agents. A key is write-only:
 * once saved only whether one is set and its last four characters are ever shown, here as anywhere. "Test" asks
 * the provider once with the stored key and shows whether it accepted it.
 */
import { type FormEvent, useState } from "react";
import type { KeyCheck, Provider } from "../../../../src/api-types";
import { ConfirmDialog } from "../../lib/dialogs";
import { useAction, useLoad } from "../../lib/hooks";
import { dateTime, ErrorText, Spinner, timeAgo, toast } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { deleteIntegration, getIntegration, putIntegration, testIntegration } from "../staff/api";
import { LoadError } from "./refusal";

const PROVIDERS = [
  {
    provider: "modelrouter",
    title: "Model gateway",
    about: "Used by staff with the modelrouter provider: an OpenAI-compatible gateway key.",
  },
  {
    provider: "agent",
    title: "Cloud agents",
    about: "Used by staff with the agent provider to launch cloud coding-agent runs.",
  },
] as const;

/** "Test" beside a stored key, and what the provider said: shown until the key changes. */
function KeyTest({ provider, title }: { provider: Provider; title: string }) {
  const ws = useWorkspace();
  const [result, setResult] = useState<KeyCheck | null>(null);
  const check = useAction(async () => {
    setResult(null);
    setResult(await testIntegration(ws.base, provider));
  });
  return (
    <>
      <button
        type="button"
        className="small"
        disabled={check.busy}
        onClick={() => void check.run()}
        aria-describedby={`key-test-${provider}`}
      >
        {check.busy ? "Testing…" : "Test"}
        <span className="sr-only"> the {title.toLowerCase()} key</span>
      </button>
      <span id={`key-test-${provider}`} role="status" className="key-test">
        {result?.ok === true && <span className="key-test-ok">✓ The provider accepted the key</span>}
        {result?.ok === false && <span className="error">✗ {result.error}</span>}
        {check.error && <span className="error">{check.error}</span>}
      </span>
    </>
  );
}

function KeyPanel({ provider, title, about }: (typeof PROVIDERS)[number]) {
  const ws = useWorkspace();
  const current = useLoad(getIntegration, ws.base, provider);
  const [key, setKey] = useState("");
  const [removing, setRemoving] = useState(false);
  const save = useAction(async () => {
    current.setData(await putIntegration(ws.base, provider, key.trim()));
    // The field is emptied at once: a saved key is never on screen again.
    setKey("");
    toast(`${title} key saved`);
  });
  const integration = current.data;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save.run();
  };
  const label = integration?.configured ? `New ${title.toLowerCase()} key` : `${title} key`;
  return (
    <section className="panel" aria-labelledby={`key-${provider}`}>
      <h2 id={`key-${provider}`}>
        {title} <code className="small">{provider}</code>
      </h2>
      <p className="muted small">{about}</p>
      <LoadError error={current.error} />
      {!current.data && !current.error && <Spinner />}
      {integration && (
        <p className="key-state" data-testid={`key-state-${provider}`}>
          {integration.configured ? (
            <>
              <span className="status-pill status-active">Configured</span> key{" "}
              <code className="key-hint">{integration.key_hint}</code>
              {integration.updated_at && (
                <span className="muted small" title={dateTime(integration.updated_at)}>
                  {" "}
                  · set {timeAgo(integration.updated_at)}
                </span>
              )}{" "}
              {/* A new key is a new test: the result of the old one goes with it. */}
              <KeyTest key={integration.updated_at ?? ""} provider={provider} title={title} />
            </>
          ) : (
            <span className="status-pill status-draft">Not set</span>
          )}
        </p>
      )}
      <form className="stack" onSubmit={submit}>
        {/* The label holds only its words, so the field is not named after its button too. */}
        <div className="field">
          <label htmlFor={`key-input-${provider}`} className="field-label">
            {label}
          </label>
          <div className="row">
            <input
              id={`key-input-${provider}`}
              className="grow"
              type="password"
              autoComplete="off"
              spellCheck={false}
              value={key}
              onChange={(e) => setKey(e.target.value)}
              maxLength={4096}
              required
            />
            <button type="submit" className="primary" disabled={save.busy || !key.trim()}>
              {integration?.configured ? "Replace key" : "Save key"}
            </button>
          </div>
        </div>
        {integration?.configured && (
          <div>
            <button type="button" className="link danger" onClick={() => setRemoving(true)}>
              Remove the key
            </button>
          </div>
        )}
        <ErrorText error={save.error} />
      </form>
      {removing && (
        <ConfirmDialog
          title={`Remove the ${title.toLowerCase()} key?`}
          confirmLabel="Remove key"
          onClose={() => setRemoving(false)}
          onConfirm={async () => {
            await deleteIntegration(ws.base, provider);
            await current.reload();
            toast(`${title} key removed`);
          }}
        >
          <p>Staff using the {provider} provider answer with an error until a new key is set.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

/** The Integrations tab. */
export function IntegrationsTab() {
  return (
    <div className="stack">
      <p className="muted small">
        Keys are stored encrypted and sent only to their provider. They are never shown again after saving: only their
        last four characters, to tell them apart.
      </p>
      {PROVIDERS.map((p) => (
        <KeyPanel key={p.provider} {...p} />
      ))}
    </div>
  );
}
