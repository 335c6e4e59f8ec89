import type { Context, Hono } from "hono";
import type { ApiEnv } from "../http/context.js";

/**
 * The web console's static files, outside /api: no credential (the page signs in through the API) and
 * no rate window (the stage's throttle bounds them), so they are not RouteSpecs and appear in no API
 * document; the route-policy test names them as its one exemption.
 */
export const CONSOLE_PATHS = ["/console", "/console/assets/:file"] as const;

const uncounted = (c: Context<ApiEnv>) => c.set("rateClass", "exempt");

/** Loaded on the first console request: API calls never evaluate the ~100 kB of bundled assets. */
const consoleFiles = () => import("../console/page.js");

export function registerConsoleRoutes(app: Hono<ApiEnv>): void {
  app.get(CONSOLE_PATHS[0], async (c) => {
    uncounted(c);
    const { CONSOLE_HEADERS, CONSOLE_PAGE } = await consoleFiles();
    // The page names content-addressed assets, so the page itself is revalidated and they are not.
    return c.html(CONSOLE_PAGE, 200, { ...CONSOLE_HEADERS, "Cache-Control": "no-cache" });
  });
  app.get(CONSOLE_PATHS[1], async (c) => {
    uncounted(c);
    const { CONSOLE_ASSETS, CONSOLE_HEADERS } = await consoleFiles();
    const asset = CONSOLE_ASSETS.get(c.req.param("file"));
    if (!asset) return c.text("Not found", 404, CONSOLE_HEADERS);
    return c.body(asset.body, 200, { ...CONSOLE_HEADERS, "Content-Type": asset.contentType, "Cache-Control": "public, max-age=31536000, immutable" });
  });
}
