/** A space's members (for private spaces, who can see it) and the git repository its agent staff work on. */
import { type FormEvent, useRef, useState } from "react";
import type { GitLinkBody, Space, SpaceMember } from "../../../../src/api-types";
import { ConfirmDialog } from "../../lib/dialogs";
import { useAction, useLoad } from "../../lib/hooks";
import { navigate } from "../../lib/router";
import { Avatar, ErrorText, Spinner, timeAgo } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { addSpaceMember, deleteGitLink, getGitLink, listSpaceMembers, putGitLink, removeSpaceMember } from "./api";

function Members({ space }: { space: Space }) {
  const ws = useWorkspace();
  const members = useLoad(listSpaceMembers, ws.base, space.id);
  const [adding, setAdding] = useState("");
  const [addingRole, setAddingRole] = useState<SpaceMember["role"]>("member");
  const [leaving, setLeaving] = useState(false);
  const [removing, setRemoving] = useState<SpaceMember | null>(null);
  // The Remove button goes away with the person, so the keyboard lands on "Add a member…" after a removal.
  const addSelect = useRef<HTMLSelectElement>(null);
  const removed = useRef(false);
  const action = useAction(async (method: "POST" | "DELETE", userId: string, role?: SpaceMember["role"]) => {
    if (method === "POST") await addSpaceMember(ws.base, space.id, { user_id: userId, role: role ?? "member" });
    else await removeSpaceMember(ws.base, space.id, userId);
    await members.reload();
  });
  /** Leaving: a private space is then out of sight, so the spaces list is where the member lands. */
  const leave = async () => {
    await removeSpaceMember(ws.base, space.id, ws.me.id);
    await ws.reloadSpaces();
    if (space.private && !ws.can("org.manage")) navigate("/spaces", { replace: true });
    else await members.reload();
  };
  const list = members.data ?? [];
  const inSpace = new Set(list.map((m) => m.user_id));
  const mine = list.find((m) => m.user_id === ws.me.id);
  const manage = mine?.role === "owner" || ws.can("org.manage");
  // The server refuses to let the last owner go (409): rather than offer a choice that can only fail, say why.
  const lastOwner = mine?.role === "owner" && list.filter((m) => m.role === "owner").length === 1;
  return (
    <section className="panel">
      <h2>Members</h2>
      <p className="muted small">
        {space.private
          ? "This space is private: only its members (and organization owners) can see it."
          : "This space is visible to everyone in the organization; members listed here own or joined it."}
      </p>
      {members.error && <ErrorText error={members.error} />}
      {!members.data && !members.error && <Spinner />}
      <ul className="list">
        {list.map((m) => (
          <li key={m.user_id} className="row">
            <Avatar id={m.user_id} name={ws.nameOf(m.user_id)} staff={ws.isStaff(m.user_id)} />
            <span className="grow">
              {ws.nameOf(m.user_id)}{" "}
              <span className="muted small">
                {m.role} · added {timeAgo(m.added_at)}
              </span>
            </span>
            {manage && m.user_id !== ws.me.id && (
              <button
                type="button"
                className="link danger"
                aria-label={`Remove ${ws.nameOf(m.user_id)}`}
                onClick={() => setRemoving(m)}
              >
                Remove
              </button>
            )}
            {m.user_id === ws.me.id &&
              (lastOwner ? (
                <span className="muted small">Only owner: make someone else an owner before leaving</span>
              ) : (
                <button type="button" className="link danger" onClick={() => setLeaving(true)}>
                  Leave
                </button>
              ))}
          </li>
        ))}
      </ul>
      {manage && (
        <form
          className="row"
          onSubmit={(event) => {
            event.preventDefault();
            if (adding) void action.run("POST", adding, addingRole).then((ok) => ok && setAdding(""));
          }}
        >
          <label className="grow">
            <span className="sr-only">Person to add</span>
            <select ref={addSelect} value={adding} onChange={(e) => setAdding(e.target.value)}>
              <option value="">Add a member…</option>
              {ws.members
                .filter((m) => !inSpace.has(m.user_id))
                .map((m) => (
                  <option key={m.user_id} value={m.user_id}>
                    {m.display_name}
                    {m.is_service_account ? " (AI staff)" : ""}
                  </option>
                ))}
            </select>
          </label>
          <label>
            <span className="sr-only">Role in the space</span>
            <select value={addingRole} onChange={(e) => setAddingRole(e.target.value as SpaceMember["role"])}>
              <option value="member">as member</option>
              <option value="owner">as owner</option>
            </select>
          </label>
          <button type="submit" disabled={!adding || action.busy}>
            Add
          </button>
        </form>
      )}
      <ErrorText error={action.error} />
      {removing && (
        <ConfirmDialog
          title={`Remove ${ws.nameOf(removing.user_id)} from ${space.name}?`}
          confirmLabel="Remove"
          onConfirm={async () => {
            await removeSpaceMember(ws.base, space.id, removing.user_id);
            removed.current = true;
            await members.reload();
          }}
          onClose={() => {
            setRemoving(null);
            if (removed.current) setTimeout(() => addSelect.current?.focus());
            removed.current = false;
          }}
        >
          {space.private
            ? `Only members (and organization owners) see this private space: ${ws.nameOf(removing.user_id)} loses access to its tasks, chat and files unless someone adds them again.`
            : `${ws.nameOf(removing.user_id)} stops being a member of this space; it stays visible to them, as to everyone in the organization.`}
        </ConfirmDialog>
      )}
      {leaving && (
        <ConfirmDialog
          title={`Leave ${space.name}?`}
          confirmLabel="Leave"
          onConfirm={leave}
          onClose={() => setLeaving(false)}
        >
          {space.private && !ws.can("org.manage")
            ? "This space is private: you will no longer see it, unless someone adds you again."
            : "You stop being a member; the space stays visible to you."}
        </ConfirmDialog>
      )}
    </section>
  );
}

function GitLinkPanel({ space }: { space: Space }) {
  const ws = useWorkspace();
  const link = useLoad(getGitLink, ws.base, space.id);
  const save = useAction(async (body: GitLinkBody | null) => {
    if (body) link.setData(await putGitLink(ws.base, space.id, body));
    else {
      await deleteGitLink(ws.base, space.id);
      link.setData(null);
    }
  });
  const current = link.data;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    void save.run({ repo_url: String(data.get("repo_url") ?? ""), ref: String(data.get("ref") ?? "") });
  };
  return (
    <section className="panel">
      <h2>Git repository</h2>
      <p className="muted small">
        The repository a cloud-agent staff member works on here, when the staff member has none of its own.
      </p>
      {link.error && <ErrorText error={link.error} />}
      {link.data !== undefined && (
        <form className="stack" onSubmit={submit} key={current?.updated_at ?? "none"}>
          <label className="field">
            <span>Repository URL</span>
            <input
              name="repo_url"
              defaultValue={current?.repo_url ?? ""}
              placeholder="https://github.com/team/repo"
              required
              disabled={!ws.can("files.write")}
            />
          </label>
          <label className="field">
            <span>Branch, tag or commit (empty: the default branch)</span>
            <input name="ref" defaultValue={current?.ref ?? ""} disabled={!ws.can("files.write")} />
          </label>
          {ws.can("files.write") && (
            <div className="row">
              <button type="submit" className="primary" disabled={save.busy}>
                Save
              </button>
              {current && (
                <button type="button" onClick={() => void save.run(null)} disabled={save.busy}>
                  Unlink
                </button>
              )}
            </div>
          )}
          <ErrorText error={save.error} />
        </form>
      )}
    </section>
  );
}

export function SpaceSettings({ space }: { space: Space }) {
  return (
    <div className="page-body narrow">
      {space.description && <p>{space.description}</p>}
      <Members space={space} />
      <GitLinkPanel space={space} />
    </div>
  );
}
