import type { Hono } from "hono";
import { z } from "zod";
import { ROLES } from "../../core/auth/roles.js";
import { isoTime } from "../../core/clock.js";
import { notFound } from "../../core/errors.js";
import { newId } from "../../core/ids.js";
import type { ApiDeps, ApiEnv } from "../http/context.js";
import { route } from "../http/route.js";
import { UserSchema, userView } from "./auth.js";
import { WorkspaceMemberParams } from "../http/route-parts.js";

const WorkspaceSchema = z.object({ id: z.string(), name: z.string(), created_at: z.string() });
const MembershipSchema = z.object({ workspace_id: z.string(), user_id: z.string(), role: z.enum(ROLES) });
const tag = "Organization";

/** Workspaces of an organization and the role a user has in each (roles: docs/decisions.md). */
export function registerWorkspaceRoutes(app: Hono<ApiEnv>, deps: Pick<ApiDeps, "identity" | "clock">): void {
  route(
    app,
    {
      method: "get",
      path: "/api/v2/users",
      operationId: "listUsers",
      summary: "The organization's users",
      tag,
      access: "user",
      role: "viewer",
      rateClass: "organization",
      errors: [],
      responses: { 200: { description: "Users.", schema: z.object({ users: z.array(UserSchema) }) } },
    },
    async (c, { principal }) => c.json({ users: (await deps.identity.listUsers(principal.orgId)).map(userView) }),
  );

  route(
    app,
    {
      method: "post",
      path: "/api/v2/workspaces",
      operationId: "createWorkspace",
      summary: "Create a workspace (admin or owner)",
      tag,
      access: "user",
      role: "admin",
      rateClass: "organization",
      errors: [],
      body: z.object({ name: z.string().min(1).max(200) }),
      responses: { 201: { description: "The workspace.", schema: WorkspaceSchema } },
    },
    async (c, { principal, body }) => {
      const now = deps.clock.now();
      const ws = { id: newId("ws", now), org_id: principal.orgId, name: body.name, created_at: isoTime(now) };
      await deps.identity.createWorkspace(ws);
      return c.json({ id: ws.id, name: ws.name, created_at: ws.created_at }, 201);
    },
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/workspaces",
      operationId: "listWorkspaces",
      summary: "The organization's workspaces (the first is the default)",
      tag,
      access: "user",
      role: "viewer",
      rateClass: "organization",
      errors: ["not_found"],
      responses: { 200: { description: "Workspaces.", schema: z.object({ workspaces: z.array(WorkspaceSchema), default_workspace_id: z.string() }) } },
    },
    async (c, { principal }) => {
      const [workspaces, org] = await Promise.all([deps.identity.listWorkspaces(principal.orgId), deps.identity.getOrganization(principal.orgId)]);
      if (!org) throw notFound("Organization");
      return c.json({
        workspaces: workspaces.map((w) => ({ id: w.id, name: w.name, created_at: w.created_at })),
        default_workspace_id: org.default_workspace_id,
      });
    },
  );

  route(
    app,
    {
      method: "put",
      path: "/api/v2/workspaces/:workspace_id/members/:user_id",
      operationId: "setWorkspaceRole",
      summary: "Give a user a role in a workspace (admin or owner)",
      tag,
      access: "user",
      role: "admin",
      rateClass: "organization",
      errors: ["not_found"],
      description: "Owners and admins act in every workspace with their organization role; a membership sets the role of a solver or viewer in one workspace.",
      params: WorkspaceMemberParams,
      body: z.object({ role: z.enum(["viewer", "solver", "admin"]) }),
      responses: { 200: { description: "The membership.", schema: MembershipSchema } },
    },
    async (c, { principal, params, body }) => {
      const [ws, user] = await Promise.all([deps.identity.getWorkspace(principal.orgId, params.workspace_id), deps.identity.getUser(params.user_id)]);
      if (!ws) throw notFound("Workspace");
      if (!user || user.org_id !== principal.orgId) throw notFound("User");
      await deps.identity.setMembership(user.id, ws.id, body.role);
      return c.json({ workspace_id: ws.id, user_id: user.id, role: body.role });
    },
  );
}
