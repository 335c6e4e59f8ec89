declare module "dynalite" {
  import type { Server } from "node:net";
  export default function dynalite(options?: Record<string, unknown>): Server;
}
