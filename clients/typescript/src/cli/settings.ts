import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";

/**
 * Where the CLI finds the service and the key: a flag, else INCUMBENT_URL / INCUMBENT_API_KEY, else
 * what `incumbent login` saved in $XDG_CONFIG_HOME/incumbent/config.json (~/.config without it),
 * written readable by its owner only, since it holds a credential.
 */
export interface Saved {
  url?: string;
  api_key?: string;
}

export function configFile(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || path.join(homedir(), ".config");
  return path.join(base, "incumbent", "config.json");
}

export function readSaved(env: NodeJS.ProcessEnv = process.env): Saved {
  try {
    const parsed: unknown = JSON.parse(readFileSync(configFile(env), "utf8"));
    if (!parsed || typeof parsed !== "object") return {};
    const { url, api_key } = parsed as Record<string, unknown>;
    return { ...(typeof url === "string" ? { url } : {}), ...(typeof api_key === "string" ? { api_key } : {}) };
  } catch {
    return {};
  }
}

export function writeSaved(saved: Saved, env: NodeJS.ProcessEnv = process.env): string {
  const file = configFile(env);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o600 });
  // An existing file keeps its mode through writeFileSync: tighten it too.
  chmodSync(file, 0o600);
  return file;
}

export class UsageError extends Error {}

export interface Connection {
  url: string;
  apiKey: string | null;
}

export function resolveConnection(flags: { url?: string; apiKey?: string }, env: NodeJS.ProcessEnv = process.env): Connection {
  const saved = readSaved(env);
  const url = flags.url ?? env.INCUMBENT_URL ?? saved.url;
  if (!url) throw new UsageError("No service URL: pass --url, set INCUMBENT_URL, or run `incumbent login --url URL --api-key KEY`.");
  try {
    new URL(url);
  } catch {
    throw new UsageError(`Not a URL: ${url}`);
  }
  return { url, apiKey: flags.apiKey ?? env.INCUMBENT_API_KEY ?? saved.api_key ?? null };
}
