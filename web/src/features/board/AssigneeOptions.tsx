/** The members a task can be assigned to, as `<option>`s: people, then AI staff, each in its group. */
import type { Member } from "../../lib/types";

export function AssigneeOptions({ members, me }: { members: readonly Member[]; me?: string }) {
  const people = members.filter((m) => !m.is_service_account);
  const staff = members.filter((m) => m.is_service_account);
  return (
    <>
      <optgroup label="People">
        {people.map((m) => (
          <option key={m.user_id} value={m.user_id}>
            {m.display_name}
            {m.user_id === me ? " (you)" : ""}
          </option>
        ))}
      </optgroup>
      {staff.length > 0 && (
        <optgroup label="AI staff">
          {staff.map((m) => (
            <option key={m.user_id} value={m.user_id}>
              {m.display_name} (AI staff)
            </option>
          ))}
        </optgroup>
      )}
    </>
  );
}
