/**
 * "Enable desktop notifications": the browser asks only from a click, so it is a button, shown until the
 * browser has answered; afterwards it says what the browser allows. Allowed, this browser also subscribes to
 * Web Push, for notifications when Tandem is closed (where it can: `push.ts`).
 */
import { askDesktopPermission, useDesktopPermission } from "./desktop";
import { enablePush } from "./push";
import { useNotificationSettings } from "./unread";

/** The offer (or the browser's answer); `always` also says when notifications are already allowed. */
export function DesktopOffer({ always = false }: { always?: boolean }) {
  const permission = useDesktopPermission();
  const settings = useNotificationSettings();
  if (permission === "unsupported")
    return always ? <p className="muted small">This browser does not show desktop notifications.</p> : null;
  if (permission === "denied")
    return always ? (
      <p className="muted small">
        Desktop notifications are blocked for this site: allow them in the browser's site settings.
      </p>
    ) : null;
  if (permission === "granted")
    return always ? (
      <p className="muted small" role="status">
        {settings?.desktop === "none"
          ? "This browser may show notifications, but Desktop below is set to none."
          : "This browser shows a notification for a new inbox item while Tandem is in another tab."}
      </p>
    ) : null;
  return (
    <div className="desktop-offer">
      <span className="grow">Get a notification when something needs you while Tandem is in another tab.</span>
      <button
        type="button"
        className="primary"
        onClick={() => void askDesktopPermission().then((answer) => (answer === "granted" ? enablePush() : undefined))}
      >
        Enable desktop notifications
      </button>
    </div>
  );
}
