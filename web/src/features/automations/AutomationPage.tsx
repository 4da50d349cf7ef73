/**
 * One automation's page (`/spaces/{id}/automations/{automationId}`): the automation with its actions, what its
 * kind needs (a webhook's URL and secret, a tunnel's state and command), and its runs, all live.
 */
import type { Automation, Space } from "../../../../src/api-types";
import { useLiveEvents } from "../../lib/events";
import { useLoad } from "../../lib/hooks";
import { Link, navigate } from "../../lib/router";
import { ErrorText, Spinner, toast, usePageTitle } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { getAutomation } from "./api";
import { AutomationCard, useStaffNames } from "./automation";
import { RunHistory } from "./RunHistory";
import { TunnelPanel } from "./TunnelPanel";
import { useRuns } from "./use-runs";
import { WebhookPanel } from "./WebhookPanel";

/** The page of automation `id` in `space`. */
export function AutomationPage({ space, id }: { space: Space; id: string }) {
  const ws = useWorkspace();
  const loaded = useLoad(getAutomation, ws.base, space.id, id);
  const runs = useRuns(space.id, id);
  const staffNames = useStaffNames();
  const automation = loaded.data;
  usePageTitle(automation ? `${automation.name} · Automations · ${space.name}` : null, 1);

  const saved = (next: Automation) => loaded.setData((old) => (old && old.updated_at > next.updated_at ? old : next));
  const back = `/spaces/${space.id}/automations`;
  const gone = () => {
    toast(`“${automation?.name ?? "The automation"}” was deleted`);
    navigate(back, { replace: true });
  };

  useLiveEvents((event) => {
    if (event.type === "resync") void loaded.reload();
    else if (event.type === "automation.updated" && event.payload?.id === id) saved(event.payload as Automation);
    else if (event.type === "automation.deleted" && event.payload?.id === id) gone();
  });

  return (
    <div className="page-body automations automation-page">
      <p className="small">
        <Link href={back}>← All automations</Link>
      </p>
      <ErrorText error={loaded.error} />
      {!automation && !loaded.error && <Spinner />}
      {automation && (
        <>
          <AutomationCard
            automation={automation}
            page
            staffNames={staffNames}
            onSaved={saved}
            onDeleted={gone}
            onRun={runs.add}
          />
          {automation.kind === "webhook" && <WebhookPanel automation={automation} canWrite={ws.can("files.write")} />}
          {automation.kind === "reverse_tunnel" && <TunnelPanel automation={automation} runs={runs.runs} />}
          <RunHistory runs={runs} spaceId={space.id} />
        </>
      )}
    </div>
  );
}
