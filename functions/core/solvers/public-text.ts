/**
 * Text a solver or the worker produced, made fit for the caller: no path of the server's file system.
 * CBC, GLPK and Python echo the files they were given and their own sources (`/tmp/incumbent-cbc-Xy12/
 * problem.mps`, `File "/app/solver-container/python/host.py"`), which tell a tenant the machine's layout
 * and other jobs' temporary names. Each absolute path of two or more segments becomes its last segment
 * (`problem.mps`): what the message is about stays readable. A path starts at a `/` that follows no word
 * character, dot, `~`, `-`, `:` or `/` (so `1/2`, `a/b` and `https://host/x` are left as they are).
 *
 * The pattern is linear: a segment cannot contain `/`, so each `/` ends a segment in one way only.
 */
const ABSOLUTE_PATH = /(?<![\w.~:/-])\/(?:[^\s/'"`<>()[\]{},;:]+\/)+([^\s/'"`<>()[\]{},;:]*)/g;

/**
 * `workDirs`: folders the text may name that are the solve's own (its temporary folder): they become
 * `.`, so `/tmp/incumbent-glpk-Xy12/problem.mps` reads `./problem.mps` and the folder's name is gone too.
 */
export function withoutServerPaths(text: string, workDirs: readonly string[] = []): string {
  let out = text;
  for (const dir of [...workDirs].sort((a, b) => b.length - a.length)) if (dir.length > 1) out = out.split(dir).join(".");
  return out.replace(ABSOLUTE_PATH, (_whole, last: string) => (last === "" ? "…/" : last));
}

/** The message a worker records for a failure of its own (not the solver's verdict). */
export const workerErrorText = (error: unknown): string => `worker error: ${withoutServerPaths(error instanceof Error ? error.message : String(error))}`;
