/**
 * What a webhook automation needs from people outside Tandem: its URL, its secret (answered once, when it is
 * made; a new one can be made at any time), and a signed example request to copy, for Standard Webhooks senders,
 * with GitHub's own signature accepted too.
 */
import { useEffect, useId, useRef, useState } from "react";
import type { Automation } from "../../../../src/api-types";
import { ConfirmDialog, ShownOnce } from "../../lib/dialogs";
import { copy, Modal } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { newWebhookSecret } from "./api";
import { webhookUrl } from "./model";
import { signedCurl } from "./webhook-example";

/** A block of text to copy whole: a command, a URL. Read-only, selected whole when focused. */
export function CopyBlock({ label, value, what }: { label: string; value: string; what: string }) {
  const id = useId();
  const lines = value.split("\n").length;
  return (
    <div className="copy-block">
      <div className="row">
        <label htmlFor={id} className="grow copy-label">
          {label}
        </label>
        <button type="button" className="small-button" onClick={() => void copy(value, `${what} copied`)}>
          Copy
        </button>
      </div>
      <textarea
        id={id}
        className="mono"
        readOnly
        wrap="off"
        rows={lines}
        value={value}
        spellCheck={false}
        onFocus={(event) => event.currentTarget.select()}
      />
    </div>
  );
}

/** How GitHub (and services signing the same way) are set up. */
function GitHubHint() {
  return (
    <p className="small muted">
      GitHub: add the URL as the webhook's Payload URL, content type <code>application/json</code>, and the whole{" "}
      <code>whsec_…</code> string as its Secret; Tandem checks <code>X-Hub-Signature-256</code>. A delivery sent twice
      (the same <code>webhook-id</code> or <code>X-GitHub-Delivery</code>) runs once.
    </p>
  );
}

/** A secret just made: shown once with the URL and the example filled in, ready to run. */
export function WebhookSecret({
  automationId,
  secret,
  onDone,
}: {
  automationId: string;
  secret: string;
  onDone: () => void;
}) {
  // The button that asked for it is gone: the keyboard goes to the secret, selected, ready to copy.
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.querySelector("input")?.focus();
  }, []);
  return (
    <div className="stack" ref={ref}>
      <ShownOnce
        label="Webhook secret"
        value={secret}
        warning="Tandem keeps it encrypted to check signatures and never shows it again: make a new one if it is lost."
      />
      <CopyBlock label="URL (POST)" value={webhookUrl(automationId)} what="URL" />
      <CopyBlock
        label="A signed request to try (shell, with openssl and curl)"
        value={signedCurl(webhookUrl(automationId), secret)}
        what="Example"
      />
      <p className="small muted">
        It runs only while the automation is active: before that (a draft, waiting for approval, paused) a signed
        request is answered 409 and runs nothing.
      </p>
      <GitHubHint />
      <div className="row end">
        <button type="button" className="primary" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}

/** The webhook panel of an automation's page. */
export function WebhookPanel({ automation, canWrite }: { automation: Automation; canWrite: boolean }) {
  const ws = useWorkspace();
  const [dialog, setDialog] = useState<"confirm" | { secret: string } | null>(null);
  const url = webhookUrl(automation.id);
  return (
    <section className="panel kind-panel" aria-labelledby="webhook-heading">
      <h2 id="webhook-heading">Webhook</h2>
      <CopyBlock label="URL (POST, signed)" value={url} what="URL" />
      <details>
        <summary className="small">A signed request with curl</summary>
        <p className="small muted hint">Put the secret in the first line; the secret itself is shown only when made.</p>
        <CopyBlock label="Example (shell, with openssl and curl)" value={signedCurl(url)} what="Example" />
      </details>
      <GitHubHint />
      {canWrite && (
        <div className="row">
          <button type="button" onClick={() => setDialog("confirm")}>
            Make a new secret
          </button>
        </div>
      )}
      {dialog === "confirm" && (
        <ConfirmDialog
          title="Make a new secret?"
          confirmLabel="Make a new secret"
          onClose={() => setDialog(null)}
          onConfirm={async () => {
            const secret = await newWebhookSecret(ws.base, automation.space_id, automation.id);
            // The confirm dialog closes after this resolves; the secret's own dialog takes its place.
            setTimeout(() => setDialog({ secret }));
          }}
        >
          <p>The current secret stops working at once: senders using it are refused until they have the new one.</p>
        </ConfirmDialog>
      )}
      {dialog !== null && dialog !== "confirm" && (
        <Modal title={`New secret for “${automation.name}”`} onClose={() => setDialog(null)} wide>
          <WebhookSecret automationId={automation.id} secret={dialog.secret} onDone={() => setDialog(null)} />
        </Modal>
      )}
    </section>
  );
}
