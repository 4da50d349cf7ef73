/**
 * Run now: a person starts an active automation at once. A social post asks first what to post (its configured
 * text to start from); the others start on the click. The run shows in the history as it starts.
 */
import { type FormEvent, useState } from "react";
import type { Automation, AutomationRun } from "../../../../src/api-types";
import { useAction } from "../../lib/hooks";
import { busyProps, ErrorText, FormButtons, Modal, toast } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { runNow } from "./api";
import { text } from "./model";

/** Asks what a social post says, then posts it. */
function PostNowDialog({
  automation,
  onClose,
  onRun,
}: {
  automation: Automation;
  onClose: () => void;
  onRun: (run: AutomationRun) => void;
}) {
  const ws = useWorkspace();
  const post = useAction(async (value: string) => {
    onRun(await runNow(ws.base, automation.space_id, automation.id, value));
    toast(`Posting “${automation.name}” now`);
    onClose();
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void post.run(String(new FormData(event.currentTarget).get("text") ?? ""));
  };
  return (
    <Modal title={`Run “${automation.name}” now`} onClose={onClose}>
      <form className="stack" onSubmit={submit} onChange={post.clear}>
        <label className="field">
          <span>Text to post</span>
          <textarea name="text" rows={4} required defaultValue={text(automation.config, "text")} />
        </label>
        <ErrorText error={post.error} />
        <FormButtons onCancel={onClose} disabled={post.busy} label="Post now" />
      </form>
    </Modal>
  );
}

/** The Run now button of an active automation, with the API's refusal beside it. */
export function RunNowButton({ automation, onRun }: { automation: Automation; onRun: (run: AutomationRun) => void }) {
  const ws = useWorkspace();
  const [asking, setAsking] = useState(false);
  const run = useAction(async () => {
    onRun(await runNow(ws.base, automation.space_id, automation.id));
    toast(`Running “${automation.name}” now`);
  });
  const social = automation.kind === "social_post";
  return (
    <>
      <button
        type="button"
        {...busyProps(run.busy)}
        onClick={() => (social ? setAsking(true) : void run.run())}
        title={automation.config_problem ? `It cannot run: ${automation.config_problem}` : undefined}
      >
        Run now
      </button>
      {run.error && (
        <span className="error small run-now-error" role="alert">
          {run.error}
        </span>
      )}
      {asking && <PostNowDialog automation={automation} onClose={() => setAsking(false)} onRun={onRun} />}
    </>
  );
}
