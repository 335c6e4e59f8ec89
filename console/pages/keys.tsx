import { useState } from "preact/hooks";
import type { ApiKeyCreated } from "@incumbent/client";
import { call, client } from "../api.js";
import { ErrorLine, message, SecretOnce, useLoad, when } from "../ui.js";

export function KeysPage() {
  const keys = useLoad(() => call(client.api.GET("/api/v2/keys")), []);
  const [created, setCreated] = useState<ApiKeyCreated | null>(null);
  const [error, setError] = useState<string | null>(null);

  const create = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const days = String(data.get("days") ?? "");
    try {
      const key = await call(
        client.api.POST("/api/v2/keys", { body: { name: String(data.get("name") ?? ""), ...(days ? { expires_in_days: Number(days) } : {}) } }),
      );
      setCreated(key);
      setError(null);
      form.reset();
      keys.reload();
    } catch (err) {
      setError(message(err));
    }
  };

  const revoke = async (id: string) => {
    try {
      await call(client.api.DELETE("/api/v2/keys/{key_id}", { params: { path: { key_id: id } } }));
      keys.reload();
    } catch (err) {
      setError(message(err));
    }
  };

  return (
    <>
      <h1 tabIndex={-1}>API keys</h1>
      <ErrorLine error={error ?? keys.error} />
      <form onSubmit={create} class="inline" aria-labelledby="new-key">
        <h2 id="new-key">New key</h2>
        <label for="key-name">Name</label>
        <input id="key-name" name="name" required maxLength={100} />
        <label for="key-days">Expires in days (empty: never)</label>
        <input id="key-days" name="days" type="number" min={1} max={3650} />
        <button type="submit">Create key</button>
      </form>
      {created ? <SecretOnce id="new-key-value" label={`Key "${created.name}"`} value={created.key} /> : null}
      <h2>Your keys</h2>
      <table>
        <caption class="sr-only">API keys, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Prefix</th>
            <th scope="col">Status</th>
            <th scope="col">Created</th>
            <th scope="col">Expires</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {(keys.value?.keys ?? []).map((k) => (
            <tr key={k.id}>
              <td>{k.name}</td>
              <td>
                <code>{k.prefix}</code>
              </td>
              <td>{k.status}</td>
              <td>{when(k.created_at)}</td>
              <td>{when(k.expires_at)}</td>
              <td>
                {k.status === "active" ? (
                  <button type="button" onClick={() => revoke(k.id)} aria-label={`Revoke key ${k.name}`}>
                    Revoke
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
