#!/usr/bin/env node
/**
 * The CDK app: one Incumbent stack for the stage chosen with `-c stage=<name>` (or INCUMBENT_STAGE),
 * default `dev`. Stage settings: lib/stage.ts (`-c incumbent:fleet=false` leaves out the solver fleet, for
 * LocalStack's free edition; docs/deploy.md). Synth needs no AWS credentials: the stack is
 * environment-agnostic unless CDK_DEFAULT_ACCOUNT/REGION are known (they are under `cdk deploy`).
 */
import { App, DefaultStackSynthesizer } from "aws-cdk-lib";
import { IncumbentStack } from "../lib/incumbent-stack.js";
import { resolveStageConfig } from "../lib/stage.js";

const app = new App();
const config = resolveStageConfig({ context: (key) => app.node.tryGetContext(key), env: process.env });
const account = process.env.CDK_DEFAULT_ACCOUNT;
const region = process.env.CDK_DEFAULT_REGION;

new IncumbentStack(app, `Incumbent-${config.stage}`, {
  config,
  description: `Incumbent optimization service (${config.stage})`,
  env: account && region ? { account, region } : undefined,
  terminationProtection: config.production,
  // The solver image is pushed to the bootstrap's shared asset repository; a per-stage tag prefix lets
  // that repository's lifecycle rule keep each stage's newest images (docs/deploy.md, New accounts).
  synthesizer: new DefaultStackSynthesizer({ dockerTagPrefix: `${config.namePrefix}-solver-` }),
});
