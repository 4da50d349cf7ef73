/**
 * Notifications when Tandem is closed (Web Push), on the profile: whether this browser gets them, with the
 * button that turns them off (or on again), or why it cannot. Shown once desktop notifications are allowed.
 */
import { useAction } from "../../lib/hooks";
import { busyProps } from "../../lib/ui";
import { useDesktopPermission } from "./desktop";
import { disablePush, enablePush, usePushState } from "./push";

export function PushSetting() {
  const permission = useDesktopPermission();
  const push = usePushState();
  const turnOn = useAction(enablePush);
  const turnOff = useAction(disablePush);
  if (push.kind === "unavailable")
    return <p className="muted small">Notifications when Tandem is closed are not available: {push.reason}.</p>;
  if (permission !== "granted" || push.kind === "checking") return null;
  if (push.kind === "on")
    return (
      <p className="muted small push-setting" role="status">
        This browser gets notifications when Tandem is closed.{" "}
        <button type="button" className="link" {...busyProps(turnOff.busy)} onClick={() => void turnOff.run()}>
          Turn off
        </button>
      </p>
    );
  return (
    <p className="muted small push-setting" role="status">
      {push.kind === "failed"
        ? `Notifications when Tandem is closed could not be turned on in this browser: ${push.reason}.`
        : "This browser shows notifications only while Tandem is open."}{" "}
      <button type="button" className="link" {...busyProps(turnOn.busy)} onClick={() => void turnOn.run()}>
        {push.kind === "failed" ? "Try again" : "Also when Tandem is closed"}
      </button>
    </p>
  );
}
