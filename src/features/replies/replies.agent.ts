/** `agent` staff answer through the agent service: its local bridge when set, else a cloud-agent run launched once. */
import type { AgentSettings } from "../../config";
import type { SpaceActor } from "../../core/actor";
import {
  type AgentSource,
  bridgeComplete,
  launchRun,
  readConversation,
  succeeded,
  waitForRun,
} from "../../providers/agent";
import type { ChatMessage, Completion, ToolCallRecord } from "../../providers/modelrouter";
import type { IntegrationsService } from "../integrations/integrations.service";
import type { SpacesService } from "../spaces/spaces.service";
import type { ServiceAccountRow } from "../staff/staff.service";
import {
  type AnswerContext,
  isSaid,
  noWork,
  providerKey,
  ReplyFailure,
  type ReplyProvider,
  type Resumable,
} from "./replies.provider";

type Run = NonNullable<Resumable["run"]>;

/** The `agent` provider: the bridge answers at once; a cloud-agent run is polled until it ends. */
export class AgentReplies implements ReplyProvider {
  constructor(
    private readonly settings: AgentSettings,
    private readonly integrations: Pick<IntegrationsService, "reveal">,
    private readonly spaces: Pick<SpacesService, "gitLink">,
  ) {}

  model(): string {
    return this.settings.localBridge ? this.settings.completionModel : "cloud-agent";
  }

  async answer(context: AnswerContext): Promise<Completion> {
    const { settings } = this;
    const key = providerKey(this.integrations, context.actor.orgId, "agent", "agent");
    const { prompt, call } = context;
    const asked = prompt.asked;
    const instructions = prompt.instructions({ preread: true, tools: [] });
    if (settings.localBridge) {
      const conversation: ChatMessage[] = [
        { role: "system", content: instructions },
        { role: "user", content: asked },
      ];
      return { ...(await bridgeComplete(settings, key, conversation, call)), toolCalls: [] };
    }
    // A cloud agent cannot call back for the conversation or the files: what it may read comes with the prompt.
    const run = context.saved.run ?? (await this.launch(context, key, `${instructions}\n\n${asked}`));
    // The run shows in the activity however it ends, timed from its launch (across a restart too).
    const launchedAt = run.launchedAt ?? Date.now();
    const record = (result: string, error: string | null): ToolCallRecord => ({
      name: "cloud_agent_run",
      arguments: run.id,
      result,
      duration_ms: Date.now() - launchedAt,
      error,
    });
    let status = "";
    try {
      status = await waitForRun(settings, key, run.id, call);
      if (!succeeded(status)) throw new ReplyFailure(`the agent run ended with status ${status}`);
      const text = await readConversation(settings, key, run.id, call);
      if (!text) throw new ReplyFailure("the agent run finished without an answer");
      return { text, ...noWork(), toolCalls: [record(status, null)] };
    } catch (error) {
      context.report({ ...noWork(), toolCalls: [record(status, isSaid(error) ? (error as Error).message : null)] });
      throw error;
    }
  }

  /** Launches the run, then links it in the conversation and keeps it in the job, in one transaction. */
  private async launch(context: AnswerContext, key: string, prompt: string): Promise<Run> {
    const source = this.repositoryOf(context.account, context.actor);
    const launched = await launchRun(this.settings, key, prompt, source, context.call);
    const where = source ? ` on ${source.repository}${source.ref ? ` (${source.ref})` : ""}` : "";
    const link = `Started a cloud agent run${where}: ${launched.url ?? launched.id}. I'll post the result here when it finishes.`;
    const { run } = context.save(() => ({
      run: { id: launched.id, url: launched.url, linkMessageId: context.post(link), launchedAt: Date.now() },
    }));
    return run;
  }

  /** The account's repository, else the space's git link, else none. */
  private repositoryOf(account: ServiceAccountRow, actor: SpaceActor): AgentSource | null {
    if (account.agentDefaultRepoUrl) {
      return { repository: account.agentDefaultRepoUrl, ref: account.agentDefaultRef };
    }
    const link = this.spaces.gitLink(actor);
    return link ? { repository: link.repoUrl, ref: link.ref || null } : null;
  }
}
