/** `modelrouter` staff answer through the model gateway, running the tools they call; the loop is saved as it goes. */
import type { ModelrouterSettings } from "../../config";
import { type Completion, complete, type LoopState, type SaveLoop } from "../../providers/modelrouter";
import type { IntegrationsService } from "../integrations/integrations.service";
import type { ServiceAccountRow } from "../staff/staff.service";
import { type AnswerContext, noWork, providerKey, type ReplyProvider } from "./replies.provider";

/** The `modelrouter` provider. */
export class ModelrouterReplies implements ReplyProvider {
  constructor(
    private readonly settings: ModelrouterSettings,
    private readonly integrations: Pick<IntegrationsService, "reveal">,
  ) {}

  model(account: ServiceAccountRow): string {
    return account.modelrouterModel || this.settings.defaultModel;
  }

  async answer(context: AnswerContext): Promise<Completion> {
    const { settings } = this;
    const key = providerKey(this.integrations, context.actor.orgId, "modelrouter", "model gateway");
    const { prompt } = context;
    const tools = settings.toolsEnabled ? prompt.tools() : [];
    const state: LoopState = context.saved.loop ?? {
      messages: [
        { role: "system", content: prompt.instructions({ preread: !settings.skipPreread, tools }) },
        { role: "user", content: prompt.asked },
      ],
      rounds: 0,
      ...noWork(),
    };
    context.report(state);
    // Saved after every answer that calls tools and with every tool that writes (a proposal): a restart
    // resumes the loop there, and never proposes the same thing twice.
    const save: SaveLoop = (loop, write) =>
      context.save(() => {
        write?.();
        return { loop };
      });
    return complete(settings, key, this.model(context.account), state, tools, context.call, save);
  }
}
