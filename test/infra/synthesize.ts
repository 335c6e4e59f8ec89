import { readFileSync } from "node:fs";
import path from "node:path";
import { App } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { IncumbentStack } from "../../lib/incumbent-stack.js";
import { resolveStageConfig, type StageConfig } from "../../lib/stage.js";
import { REPO_ROOT } from "../support/machine.js";
import type { Template as TemplateJson } from "./template-guards.js";

/** cdk.json's context (feature flags), so the stack under test is the one `cdk synth` produces. */
const CDK_CONTEXT = JSON.parse(readFileSync(path.join(REPO_ROOT, "cdk.json"), "utf8")).context as Record<string, unknown>;

export interface Synthesized {
  config: StageConfig;
  stack: IncumbentStack;
  template: Template;
  json: TemplateJson;
}

/**
 * The stack of one stage, synthesized in-process. Lambda bundling is skipped (the
 * `aws:cdk:bundling-stacks` context, CDK's own switch for it): esbuild's output is not what these
 * tests look at, and synth.test.ts runs the real `cdk synth` with bundling.
 */
export function synthesize(stage: string, settings: Record<string, unknown> = {}): Synthesized {
  const context: Record<string, unknown> = { ...CDK_CONTEXT, stage, "aws:cdk:bundling-stacks": [] };
  for (const [key, value] of Object.entries(settings)) context[`incumbent:${key}`] = value;
  const app = new App({ context });
  const config = resolveStageConfig({ context: (key) => app.node.tryGetContext(key), env: {} });
  const stack = new IncumbentStack(app, `Incumbent-${stage}`, { config });
  const template = Template.fromStack(stack);
  return { config, stack, template, json: template.toJSON() as TemplateJson };
}

/** Environment variable names a source file reads directly (`env.X`, `process.env.X`). */
export function envReadsOf(relativeFile: string): string[] {
  const source = readFileSync(path.join(REPO_ROOT, relativeFile), "utf8");
  // Reads only: `process.env.X ??= …` sets a default for the process, it asks nothing of the stack.
  return [...new Set([...source.matchAll(/\benv\.([A-Z][A-Z0-9_]+)\b(?!\s*(?:\?\?|\|\||&&)?=[^=])/g)].map((m) => m[1]!))];
}

/** Every variable functions/core/config.ts knows, so a misspelt setting in the stack is caught. */
export function configVariableNames(): Set<string> {
  const source = readFileSync(path.join(REPO_ROOT, "functions/core/config.ts"), "utf8");
  const names = new Set<string>();
  for (const m of source.matchAll(/\b(?:num|str|bool|list)\(env, "([A-Z0-9_]+)"/g)) names.add(m[1]!);
  for (const m of source.matchAll(/\bwindow\(env, "([A-Z0-9_]+)"/g)) ["PER_MINUTE", "PER_DAY"].forEach((s) => names.add(`${m[1]}_${s}`));
  for (const m of source.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)) names.add(m[1]!);
  return names;
}
