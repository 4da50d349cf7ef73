/**
 * A reverse tunnel on its automation's page: whether someone's local service is connected now (each connection
 * is a run, running while it lasts), the `tandem tunnel` command that connects one, and a button that opens the
 * tunnel in this browser through a one-time sign-in link.
 */
import { useId, useState } from "react";
import type { Automation, AutomationRun } from "../../../../src/api-types";
import { useAction } from "../../lib/hooks";
import { busyProps, dateTime, ErrorText, timeAgo } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { tunnelLink } from "./api";
import { liveConnection } from "./runs-state";
import { targetProblem, tunnelCommand } from "./tunnel-command";
import { CopyBlock } from "./WebhookPanel";

/** The address a developer's service usually listens on; changed in the panel, the command follows. */
const DEFAULT_TARGET = "http://127.0.0.1:3000";

/** "Connected since …" or when it was last connected, in a live region so a change is heard. */
function TunnelState({ automation, runs }: { automation: Automation; runs: AutomationRun[] | null }) {
  if (runs === null) return <p className="muted">Checking the connection…</p>;
  const live = liveConnection(runs);
  const last = runs.find((r) => r.trigger === "connection");
  const requests = live?.output?.requests;
  return (
    <p className={live ? "tunnel-state connected" : "tunnel-state"} role="status">
      {live ? (
        <>
          <strong>Connected</strong>
          {live.started_at && (
            <>
              {" "}
              since <time title={dateTime(live.started_at)}>{timeAgo(live.started_at)}</time>
            </>
          )}
          {typeof requests === "number" && ` · ${requests} ${requests === 1 ? "request" : "requests"}`}
        </>
      ) : (
        <>
          <strong>Not connected</strong>
          {last?.finished_at ? (
            <>
              {" "}
              · last connection ended <time title={dateTime(last.finished_at)}>{timeAgo(last.finished_at)}</time>
            </>
          ) : (
            " · never connected yet"
          )}
          {automation.status !== "active" && " · it connects only while the automation is active"}
        </>
      )}
    </p>
  );
}

/** The tunnel panel of an automation's page. */
export function TunnelPanel({ automation, runs }: { automation: Automation; runs: AutomationRun[] | null }) {
  const ws = useWorkspace();
  const id = useId();
  const [target, setTarget] = useState(DEFAULT_TARGET);
  const open = useAction(async () => {
    // Opened before the request, so the browser does not take the new tab for a pop-up.
    const tab = window.open("", "_blank");
    // The tunnel's pages are someone's service: they get no handle on this page.
    if (tab) tab.opener = null;
    try {
      const url = await tunnelLink(ws.base, automation.space_id, automation.id);
      if (tab) tab.location.href = url;
      else location.assign(url);
    } catch (error) {
      tab?.close();
      throw error;
    }
  });
  const service = target.trim() || DEFAULT_TARGET;
  const problem = targetProblem(service);
  const command = tunnelCommand(location.origin, automation.id, service);
  return (
    <section className="panel kind-panel" aria-labelledby="tunnel-heading">
      <h2 id="tunnel-heading">Tunnel</h2>
      <TunnelState automation={automation} runs={runs} />
      <label className="field">
        <span>Your local service</span>
        <input
          className="mono"
          value={target}
          spellCheck={false}
          aria-invalid={problem !== null}
          aria-describedby={problem ? `${id}-problem` : undefined}
          onChange={(event) => setTarget(event.target.value)}
        />
      </label>
      {problem && (
        <p id={`${id}-problem`} className="small error">
          {problem}
        </p>
      )}
      <CopyBlock label="Run this where the service runs" value={command} what="Command" />
      <p className="small muted">
        It asks for a token, then Enter: a staff member's <code>sa_</code> token, or a person's access token (from
        signing in over the API: it lasts 15 minutes, long enough to connect); either needs files.write in this space.
        Asked for this way, it stays out of <code>ps</code> and the shell's history (<code>TANDEM_TOKEN</code> works
        too). Teammates who can see this space open the tunnel with the button below; others cannot.
      </p>
      <div className="row">
        <button type="button" {...busyProps(open.busy)} onClick={() => void open.run()}>
          Open the tunnel in a new tab
        </button>
      </div>
      <ErrorText error={open.error} />
    </section>
  );
}
