/** A space's labels: named, coloured tags that its tasks carry (`label_ids`) and are filtered by. */
import type { SpaceActor } from "../../core/actor";
import { conflict, invalid, notFound } from "../../core/errors";
import { spaceEvent } from "../../core/events";
import type { UnitOfWork } from "../../db/unit";
import { isUuid, newId, nextStamp } from "../../lib/ids";
import { nameTaken } from "../../lib/text";
import { presentLabel } from "./labels.present";
import type { CreateLabelIn, PatchLabelIn } from "./labels.schemas";
import type { LabelRow, LabelsStore } from "./labels.store";

const labelNotFound = () => notFound("label not found");

/** Label operations, each on a space the macro has already checked. Every change emits its event. */
export class LabelsService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: LabelsStore,
  ) {}

  /** The space's labels, oldest first. */
  list(actor: SpaceActor): LabelRow[] {
    return this.store.ofSpace(actor.space.id);
  }

  /** Names are unique in the space, ignoring case. */
  create(actor: SpaceActor, input: CreateLabelIn): LabelRow {
    return this.uow.write((unit) => {
      const labels = this.store.ofSpace(actor.space.id);
      if (nameTaken(labels, input.name)) throw conflict("name already exists");
      const row: LabelRow = {
        id: newId(),
        spaceId: actor.space.id,
        name: input.name,
        color: input.color,
        // Listed by creation: two labels made in one millisecond still list in the order they were made.
        createdAt: nextStamp(labels.at(-1)?.createdAt),
      };
      this.store.insert(row);
      unit.emit(spaceEvent(actor, "label.created", presentLabel(row)));
      return row;
    });
  }

  /** Renames or recolours a label; only the fields present change. */
  update(actor: SpaceActor, id: string, input: PatchLabelIn): LabelRow {
    return this.uow.write((unit) => {
      const label = this.require(actor, id);
      const next: LabelRow = { ...label };
      if (input.name !== undefined) {
        if (nameTaken(this.store.ofSpace(actor.space.id), input.name, label.id)) throw conflict("name already exists");
        next.name = input.name;
      }
      if (input.color !== undefined) next.color = input.color;
      this.store.save(label, next);
      unit.emit(spaceEvent(actor, "label.updated", presentLabel(next)));
      return next;
    });
  }

  /** Deletes a label; the tasks carrying it drop it, each as an update (the tasks' handler of `label.deleted`). */
  delete(actor: SpaceActor, id: string): void {
    this.uow.write((unit) => {
      const label = this.require(actor, id);
      unit.emit(spaceEvent(actor, "label.deleted", { id: label.id }));
      this.store.delete(label.id);
    });
  }

  /**
   * `ids` without repeats, in label order (their ids, made in time order), each a label of the actor's space:
   * 400 `invalid label` for any other (unknown, malformed, or another space's).
   */
  resolve(actor: SpaceActor, ids: readonly string[]): string[] {
    if (ids.length === 0) return [];
    const own = new Set(this.store.ofSpace(actor.space.id).map((label) => label.id));
    const wanted = [...new Set(ids)];
    if (!wanted.every((id) => own.has(id))) throw invalid("invalid label");
    return wanted.sort();
  }

  private require(actor: SpaceActor, id: string): LabelRow {
    const label = isUuid(id) ? this.store.label(actor.space.id, id) : undefined;
    if (!label) throw labelNotFound();
    return label;
  }
}
