import { parentPort } from "node:worker_threads";
import { runModelTask, taskErrorOf, type ModelTask, type ModelTaskResult } from "./tasks.js";

/**
 * The API's model thread (model-work.ts, ThreadModelWork): runs one task per message and answers with
 * its result, whose byte arrays are transferred to the event loop's thread, not copied.
 */
const buffersOf = (result: ModelTaskResult): ArrayBuffer[] => {
  const arrays = result.kind === "preview" ? [result.body] : [result.problem.json, ...(result.names ? [result.names] : [])];
  return arrays.map((a) => a.buffer as ArrayBuffer);
};

parentPort!.on("message", ({ id, task }: { id: number; task: ModelTask }) => {
  try {
    const result = runModelTask(task);
    parentPort!.postMessage({ id, ok: true, result }, buffersOf(result));
  } catch (error) {
    parentPort!.postMessage({ id, ok: false, error: taskErrorOf(error) });
  }
});
