import type { Hono } from "hono";
import { z } from "zod";
import { isoTime } from "../../core/clock.js";
import { ROLES } from "../../core/auth/roles.js";
import type { Principal } from "../../core/auth/service.js";
import { notFound } from "../../core/errors.js";
import { newId } from "../../core/ids.js";
import type { ApiEnv } from "../http/context.js";
import { requirePrincipal, requireRole, route } from "../http/route.js";
import { UserSchema } from "./auth.js";

const WorkspaceSchema = z.object({ id: z.string(), name: z.string(), created_at: z.string() });
const MembershipSchema = z.object({ workspace_id: z.string(), user_id: z.string(), role: z.enum(ROLES) });
const tag = "Organization";

const admin = (input: { principal: Principal | null }): Principal => requireRole(input, "admin", "Managing workspaces and members needs the admin role.");

/** Workspaces of an organization and the role a user has in each (roles: docs/decisions.md). */
export function registerWorkspaceRoutes(app: Hono<ApiEnv>): void {
  route(
    app,
    {
      method: "get",
      path: "/api/v2/users",
      operationId: "listUsers",
      summary: "The organization's users",
      tag,
      access: "user",
      responses: { 200: { description: "Users.", schema: z.object({ users: z.array(UserSchema) }) } },
    },
    async (c, input) => {
      const principal = requirePrincipal(input);
      const users = await c.get("deps").identity.listUsers(principal.orgId);
      return c.json({
        users: users.map((u) => ({ id: u.id, organization_id: u.org_id, email: u.email, name: u.name, role: u.role, created_at: u.created_at })),
      });
    },
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
      body: z.object({ name: z.string().min(1).max(200) }),
      responses: { 201: { description: "The workspace.", schema: WorkspaceSchema }, 403: { description: "Not an admin." } },
    },
    async (c, input) => {
      const principal = admin(input);
      const deps = c.get("deps");
      const now = deps.clock.now();
      const ws = { id: newId("ws", now), org_id: principal.orgId, name: input.body.name, created_at: isoTime(now) };
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
      responses: { 200: { description: "Workspaces.", schema: z.object({ workspaces: z.array(WorkspaceSchema), default_workspace_id: z.string() }) } },
    },
    async (c, input) => {
      const principal = requirePrincipal(input);
      const deps = c.get("deps");
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
      description: "Owners and admins act in every workspace with their organization role; a membership sets the role of a solver or viewer in one workspace.",
      params: z.object({ workspace_id: z.string().min(1), user_id: z.string().min(1) }),
      body: z.object({ role: z.enum(["viewer", "solver", "admin"]) }),
      responses: { 200: { description: "The membership.", schema: MembershipSchema }, 404: { description: "No such workspace or user in the organization." } },
    },
    async (c, input) => {
      const principal = admin(input);
      const deps = c.get("deps");
      const [ws, user] = await Promise.all([
        deps.identity.getWorkspace(principal.orgId, input.params.workspace_id),
        deps.identity.getUser(input.params.user_id),
      ]);
      if (!ws) throw notFound("Workspace");
      if (!user || user.org_id !== principal.orgId) throw notFound("User");
      await deps.identity.setMembership(user.id, ws.id, input.body.role);
      return c.json({ workspace_id: ws.id, user_id: user.id, role: input.body.role });
    },
  );
}
