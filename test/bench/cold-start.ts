/**
 * `npm run bench -- cold-start [runs] [--assembly DIR]…`
 *
 * Module load of each Lambda bundle in the cloud assembly (`cdk synth`'s output, cached per change), and
 * in each other assembly DIR named (e.g. an older cdk.out, to compare in the same run): a fresh Node per run, with the function's NODE_OPTIONS
 * (source maps on, as deployed), importing its index.mjs from a copy of the asset alone. Columns: the
 * import's median and p90, the process's time from start to module loaded, the bundle and map sizes,
 * and the import's ratio to an empty module's, measured interleaved in the same run. The environment is
 * the template's with placeholders for resource names and a JWT_SECRET, so no import waits on a network.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { ensureCloudAssembly, lambdaFunctions, readTemplate } from "../assembly/cloud-assembly.js";
import { median, percentile, table } from "./_stats.js";

const PROBE = `
const started = performance.now();
await import(process.argv[1]);
const loaded = performance.now();
process.stdout.write(JSON.stringify({ importMs: loaded - started, sinceStartMs: loaded }));
process.exit(0);
`;

/** Stand-ins for what CloudFormation would resolve: the import only reads them. */
function placeholder(value: unknown): string {
  if (typeof value === "string") return value;
  const v = value as Record<string, any>;
  if (v?.["Fn::Join"]) return (v["Fn::Join"][1] as unknown[]).map(placeholder).join(v["Fn::Join"][0]);
  const id = v?.Ref ?? v?.["Fn::GetAtt"]?.[0] ?? "value";
  return id === "AWS::Region" ? "us-east-1" : `https://placeholder.invalid/${id}`;
}

function loadOnce(dir: string, env: Record<string, string>): { importMs: number; sinceStartMs: number } {
  const out = spawnSync(process.execPath, ["--input-type=module", "-e", PROBE, path.join(dir, "index.mjs")], { cwd: dir, env, encoding: "utf8" });
  if (out.status !== 0) throw new Error(`import of ${dir} failed: ${out.stderr}`);
  return JSON.parse(out.stdout) as { importMs: number; sinceStartMs: number };
}

export default async function coldStart(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, options: { assembly: { type: "string", multiple: true } }, allowPositionals: true });
  const runs = Number(positionals[0] ?? 15);
  const assemblies = [await ensureCloudAssembly(), ...(values.assembly ?? []).map((d) => path.resolve(d))];
  const functions = assemblies.flatMap((assembly, n) =>
    lambdaFunctions(assembly, readTemplate(assembly))
      .filter((f) => f.ours)
      .map((f) => ({ ...f, label: n === 0 ? f.logicalId : `${f.logicalId} [${path.basename(assembly)}]` })),
  );
  const root = mkdtempSync(path.join(os.tmpdir(), "incumbent-cold-start-"));
  try {
    const baseEnv = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: "x",
      AWS_SECRET_ACCESS_KEY: "x",
      JWT_SECRET: "bench",
    };
    const empty = path.join(root, "empty");
    mkdirSync(empty);
    writeFileSync(path.join(empty, "index.mjs"), "export const handler = async () => null;\n");
    const subjects = [
      { name: "(empty module)", dir: empty, env: { ...baseEnv, NODE_OPTIONS: "--enable-source-maps" }, bytes: 0, mapBytes: 0 },
      ...functions.map((fn) => {
        const dir = path.join(root, fn.label.replace(/[^\w.-]+/g, "_"));
        cpSync(fn.assetDir, dir, { recursive: true });
        const env: Record<string, string> = { ...baseEnv };
        for (const [k, v] of Object.entries(fn.environment)) env[k] = placeholder(v);
        env.JWT_SECRET = "bench";
        const size = (f: string) => {
          try {
            return statSync(path.join(dir, f)).size;
          } catch {
            return 0;
          }
        };
        return { name: fn.label, dir, env, bytes: size("index.mjs"), mapBytes: size("index.mjs.map") };
      }),
    ];
    const samples = new Map(subjects.map((s) => [s.name, [] as { importMs: number; sinceStartMs: number }[]]));
    loadOnce(subjects[1]!.dir, subjects[1]!.env); // the file cache, once
    for (let i = 0; i < runs; i++) for (const s of subjects) samples.get(s.name)!.push(loadOnce(s.dir, s.env));
    const emptyMedian = median(samples.get("(empty module)")!.map((x) => x.importMs));
    const rows = subjects.map((s) => {
      const imports = samples
        .get(s.name)!
        .map((x) => x.importMs)
        .sort((a, b) => a - b);
      const sinceStart = median(samples.get(s.name)!.map((x) => x.sinceStartMs));
      return [
        s.name,
        median(imports),
        percentile(imports, 90),
        sinceStart,
        Math.round(s.bytes / 1024),
        Math.round(s.mapBytes / 1024),
        median(imports) / emptyMedian,
      ];
    });
    console.log(`Lambda bundle cold start: module load in a fresh Node, ${runs} runs each, interleaved; the first rows are this checkout's synth\n`);
    console.log(table(["function", "import median ms", "import p90 ms", "process start → loaded ms", "index.mjs KB", "map KB", "× empty module"], rows));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
