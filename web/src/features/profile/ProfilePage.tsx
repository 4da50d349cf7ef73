/**
 * The person's own screen: their display name (everyone sees a change at once), the password, how they are
 * notified (email: off, a digest or every item, when the server can send email; desktop: every item, mentions
 * only or none, the browser's permission, and whether this browser gets them when Tandem is closed), and what
 * they muted.
 */
import { type FormEvent, useState } from "react";
import type { NotificationChanges, NotificationSettings } from "../../../../src/api-types";
import { useAction, useLoad } from "../../lib/hooks";
import { busyProps, ErrorText, Spinner, toast } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { getInstance } from "../auth/api";
import { ChangePasswordDialog } from "../auth/ChangePassword";
import { DesktopOffer } from "../inbox/DesktopOffer";
import { PushSetting } from "../inbox/PushSetting";
import { changeNotificationSettings, useNotificationSettings } from "../inbox/unread";
import { renameMe } from "./api";
import { MutedList } from "./MutedList";

const EMAIL: { value: NotificationSettings["email"]; label: string; hint: string }[] = [
  { value: "digest", label: "Digest", hint: "what stayed unread for 10 minutes, in one email" },
  { value: "all", label: "Every item", hint: "an email for each new inbox item" },
  { value: "off", label: "Off", hint: "no email" },
];
const DESKTOP: { value: NotificationSettings["desktop"]; label: string; hint: string }[] = [
  { value: "all", label: "Every item", hint: "mentions, assignments, answers, approvals" },
  { value: "mentions", label: "Mentions only", hint: "" },
  { value: "none", label: "None", hint: "" },
];

/** Whether the server can send email (`email_enabled` of the instance; a server without the field cannot). */
async function emailEnabled(): Promise<boolean> {
  const instance = await getInstance();
  return "email_enabled" in instance && instance.email_enabled === true;
}

export default function ProfilePage() {
  return (
    <section className="page-body narrow profile">
      <header className="page-head">
        <h1>Profile</h1>
      </header>
      <NameSection />
      <NotificationsSection />
      <MutedList />
    </section>
  );
}

function NameSection() {
  const ws = useWorkspace();
  const [name, setName] = useState(ws.me.display_name);
  const [changingPassword, setChangingPassword] = useState(false);
  const rename = useAction(async (displayName: string) => {
    const user = await renameMe(displayName);
    setName(user.display_name);
    await ws.reloadMe();
    toast("Display name changed");
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void rename.run(name.trim());
  };
  const unchanged = name.trim() === ws.me.display_name || name.trim() === "";
  return (
    <section className="panel" aria-labelledby="profile-you">
      <h2 id="profile-you">You</h2>
      <form className="stack" onSubmit={submit}>
        <div className="field">
          <label htmlFor="profile-name" className="field-label">
            Display name
          </label>
          <div className="row">
            <input
              id="profile-name"
              className="grow"
              value={name}
              onChange={(e) => {
                setName(e.target.value);
                rename.clear();
              }}
              required
              maxLength={200}
              autoComplete="name"
            />
            <button type="submit" className="primary" {...busyProps(rename.busy || unchanged)}>
              Save
            </button>
          </div>
        </div>
        <ErrorText error={rename.error} />
        <p className="muted small">
          Signed in as {ws.me.email}.{" "}
          <button type="button" className="link" onClick={() => setChangingPassword(true)}>
            Change password
          </button>
        </p>
      </form>
      {changingPassword && <ChangePasswordDialog onClose={() => setChangingPassword(false)} />}
    </section>
  );
}

function NotificationsSection() {
  const saved = useNotificationSettings();
  const email = useLoad(emailEnabled);
  // A choice shows at once, and goes back if the server refuses it.
  const [choice, setChoice] = useState<NotificationChanges>({});
  const save = useAction(async (changes: NotificationChanges) => {
    setChoice(changes);
    try {
      await changeNotificationSettings(changes);
      toast("Notification settings saved");
    } finally {
      setChoice({});
    }
  });
  if (!saved) return <Spinner />;
  const settings = { ...saved, ...choice };
  const emailOff = email.data === false;
  return (
    <section className="panel" aria-labelledby="profile-notifications">
      <h2 id="profile-notifications">Notifications</h2>
      <p className="muted small">What needs you collects in your Inbox. Choose what else tells you about it.</p>
      <fieldset className="choice-group" disabled={emailOff || email.data === undefined}>
        <legend>Email</legend>
        {emailOff && (
          <p className="notice small">
            Email is off on this server: nothing is emailed until an administrator sets up SMTP.
          </p>
        )}
        {EMAIL.map((option) => (
          <label key={option.value} className="choice">
            <input
              type="radio"
              name="email"
              value={option.value}
              checked={settings.email === option.value}
              onChange={() => void save.run({ email: option.value })}
            />
            <span>
              {option.label}
              <span className="muted small"> · {option.hint}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <fieldset className="choice-group">
        <legend>Desktop</legend>
        {DESKTOP.map((option) => (
          <label key={option.value} className="choice">
            <input
              type="radio"
              name="desktop"
              value={option.value}
              checked={settings.desktop === option.value}
              onChange={() => void save.run({ desktop: option.value })}
            />
            <span>
              {option.label}
              {option.hint && <span className="muted small"> · {option.hint}</span>}
            </span>
          </label>
        ))}
        <DesktopOffer always />
        <PushSetting />
      </fieldset>
      <ErrorText error={save.error} />
    </section>
  );
}
