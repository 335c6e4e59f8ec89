import { readFileSync, statfsSync } from "node:fs";
import os from "node:os";

/** Machine readings for the health endpoints (Linux /proc where present, os module otherwise). */
export interface SystemReadings {
  cpu_percent: number;
  memory_percent: number;
  memory_available_mb: number;
  disk_usage_percent: number;
}

let lastCpu: { idle: number; total: number } | null = null;

function cpuTimes(): { idle: number; total: number } {
  let idle = 0;
  let total = 0;
  for (const cpu of os.cpus()) {
    const t = cpu.times;
    idle += t.idle;
    total += t.user + t.nice + t.sys + t.idle + t.irq;
  }
  return { idle, total };
}

/** CPU busy share since the previous reading (since boot on the first). */
function cpuPercent(): number {
  const now = cpuTimes();
  const prev = lastCpu ?? { idle: 0, total: 0 };
  lastCpu = now;
  const total = now.total - prev.total;
  return total > 0 ? round(100 * (1 - (now.idle - prev.idle) / total)) : 0;
}

function memory(): { percent: number; availableMb: number } {
  const total = os.totalmem();
  let available = os.freemem();
  try {
    // MemAvailable counts reclaimable cache; MemFree alone would report a busy-looking machine.
    const match = /MemAvailable:\s+(\d+) kB/.exec(readFileSync("/proc/meminfo", "utf8"));
    if (match) available = Number(match[1]) * 1024;
  } catch {
    // not Linux: freemem is the best reading available
  }
  return { percent: round(100 * (1 - available / total)), availableMb: round(available / 1024 / 1024) };
}

function diskPercent(path: string): number {
  try {
    const s = statfsSync(path);
    const used = s.blocks - s.bfree;
    const usable = used + s.bavail;
    return usable > 0 ? round((100 * used) / usable) : 0;
  } catch {
    return 0;
  }
}

const round = (x: number) => Math.round(x * 100) / 100;

export function readSystem(diskPath = os.tmpdir()): SystemReadings {
  const mem = memory();
  return { cpu_percent: cpuPercent(), memory_percent: mem.percent, memory_available_mb: mem.availableMb, disk_usage_percent: diskPercent(diskPath) };
}

export type ComponentStatus = "healthy" | "degraded" | "down";

/** The spec's thresholds for memory and disk: below 85% healthy, 85–95% degraded, above 95% down. */
export function usageStatus(percent: number): ComponentStatus {
  if (percent > 95) return "down";
  if (percent >= 85) return "degraded";
  return "healthy";
}

export interface Component {
  name: "database" | "solver" | "memory" | "disk";
  status: ComponentStatus;
  latency_ms: number | null;
  message: string | null;
}

/**
 * Overall status: down when a critical component failed (database, solver, memory above 95%);
 * degraded when any is under stress; healthy otherwise. Disk above 95% is stress, not an outage:
 * solves keep running from memory, so the spec lists it only among the degraded causes.
 */
export function overallStatus(components: Component[]): ComponentStatus {
  const critical = components.some((c) => c.status === "down" && c.name !== "disk");
  if (critical) return "down";
  return components.some((c) => c.status !== "healthy") ? "degraded" : "healthy";
}
