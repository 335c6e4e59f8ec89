import { useState } from "preact/hooks";
import { api, type Json } from "../api.js";
import { ErrorLine, message, useLoad, usePoll, when } from "../ui.js";

/** The unread count beside the nav link; asked again on every page change and every 15 s. */
export function UnreadBadge({ route }: { route: string }) {
  const [count, setCount] = useState(0);
  usePoll(
    async () => {
      try {
        setCount((await api("GET", "/api/v2/notifications/unread-count")).unread_count);
      } catch {
        // The badge is a hint: a failed count keeps the last one.
      }
    },
    15_000,
    [route],
  );
  return count > 0 ? (
    <span class="badge">
      {count}
      <span class="sr-only"> unread</span>
    </span>
  ) : null;
}

export function NotificationsPage() {
  const list = useLoad(() => api("GET", "/api/v2/notifications?limit=100"), []);
  const [error, setError] = useState<string | null>(null);
  const act = async (path: string) => {
    try {
      await api("POST", path);
      list.reload();
    } catch (err) {
      setError(message(err));
    }
  };
  const items: Json[] = list.value?.items ?? [];
  return (
    <>
      <h1 tabIndex={-1}>Notifications</h1>
      <ErrorLine error={error ?? list.error} />
      <p>
        {list.value ? `${list.value.unread_count} unread` : "Loading…"}{" "}
        <button type="button" onClick={() => act("/api/v2/notifications/read-all")} disabled={!list.value?.unread_count}>
          Mark all read
        </button>
      </p>
      <ul class="notifications">
        {items.map((n) => (
          <li key={n.id} class={n.is_read ? "read" : "unread"}>
            <h2>
              {n.is_read ? "" : "● "}
              {n.title}
            </h2>
            <p>{n.message}</p>
            <p class="hint">
              {n.type} · {when(n.created_at)}
            </p>
            {n.is_read ? null : (
              <button type="button" onClick={() => act(`/api/v2/notifications/${encodeURIComponent(n.id)}/read`)} aria-label={`Mark "${n.title}" read`}>
                Mark read
              </button>
            )}
          </li>
        ))}
      </ul>
      {list.value && items.length === 0 ? <p>No notifications.</p> : null}
    </>
  );
}
