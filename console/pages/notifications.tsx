import { useEffect, useState } from "preact/hooks";
import { call, client } from "../api.js";
import { ErrorLine, message, useLoad, usePoll, when } from "../ui.js";

/** Fired by the notifications page after marking, so the badge does not wait for its next poll. */
const CHANGED = "incumbent:notifications-changed";

/** The unread count beside the nav link; asked again on every page change, every 15 s, and after marking. */
export function UnreadBadge({ route }: { route: string }) {
  const [count, setCount] = useState(0);
  const [changes, setChanges] = useState(0);
  useEffect(() => {
    const onChange = () => setChanges((n) => n + 1);
    addEventListener(CHANGED, onChange);
    return () => removeEventListener(CHANGED, onChange);
  }, []);
  usePoll(
    async () => {
      try {
        setCount((await call(client.api.GET("/api/v2/notifications/unread-count"))).unread_count);
      } catch {
        // The badge is a hint: a failed count keeps the last one.
      }
    },
    15_000,
    [route, changes],
  );
  return count > 0 ? (
    <span class="badge">
      {count}
      <span class="sr-only"> unread</span>
    </span>
  ) : null;
}

export function NotificationsPage() {
  const list = useLoad(() => call(client.api.GET("/api/v2/notifications", { params: { query: { limit: 100 } } })), []);
  const [error, setError] = useState<string | null>(null);
  const act = async (request: () => Promise<unknown>) => {
    try {
      await request();
      list.reload();
      dispatchEvent(new Event(CHANGED));
    } catch (err) {
      setError(message(err));
    }
  };
  const items = list.value?.items ?? [];
  return (
    <>
      <h1 tabIndex={-1}>Notifications</h1>
      <ErrorLine error={error ?? list.error} />
      <p>
        <span data-testid="unread-count">{list.value ? `${list.value.unread_count} unread` : "Loading…"}</span>{" "}
        <button type="button" onClick={() => act(() => call(client.api.POST("/api/v2/notifications/read-all")))} disabled={!list.value?.unread_count}>
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
              <button
                type="button"
                onClick={() =>
                  act(() => call(client.api.POST("/api/v2/notifications/{notification_id}/read", { params: { path: { notification_id: n.id } } })))
                }
              >
                Mark read<span class="sr-only">: {n.title}</span>
              </button>
            )}
          </li>
        ))}
      </ul>
      {list.value && items.length === 0 ? <p>No notifications.</p> : null}
    </>
  );
}
