/**
 * Just enough of IAM's evaluation of identity policies to ask "may this role do that to this?" of the
 * statements a synthesized template gives a role: an explicit Deny wins, otherwise some Allow must match
 * the action (Action / NotAction, `*` and `?` wildcards, case-insensitive) and the resource (Resource /
 * NotResource, wildcards) with every condition holding (StringEquals/Like, ArnEquals/Like and their
 * `Not` forms, Bool, on the request's context keys; a key the request lacks fails the condition).
 *
 * Template values are rendered first (`renderPolicyValue`): pseudo parameters and `Ref`/`GetAtt` of
 * resources become the strings the caller provides, so the statements compare with real ARNs.
 */
export interface PolicyStatement {
  Effect: "Allow" | "Deny";
  Action?: string | string[];
  NotAction?: string | string[];
  Resource?: string | string[];
  NotResource?: string | string[];
  Condition?: Record<string, Record<string, string | string[]>>;
}

export interface AccessRequest {
  action: string;
  resource: string;
  context?: Record<string, string>;
}

const list = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** IAM's `*` and `?` wildcards; actions match whatever their case (`caseInsensitive`), resources and condition values exactly. */
export function wildcardMatch(pattern: string, value: string, { caseInsensitive = false }: { caseInsensitive?: boolean } = {}): boolean {
  const source = `^${pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".")}$`;
  return new RegExp(source, caseInsensitive ? "i" : "").test(value);
}

function conditionHolds(operator: string, { key, expected, context }: { key: string; expected: string[]; context: Record<string, string> }): boolean {
  const ifExists = operator.endsWith("IfExists");
  const op = ifExists ? operator.slice(0, -"IfExists".length) : operator;
  const actual = context[key];
  if (actual === undefined) return ifExists || op.startsWith("StringNot") || op.startsWith("ArnNot");
  const like = (p: string) => wildcardMatch(p, actual);
  switch (op) {
    case "StringEquals":
    case "ArnEquals":
      return expected.includes(actual);
    case "StringLike":
    case "ArnLike":
      return expected.some(like);
    case "StringNotEquals":
    case "ArnNotEquals":
      return !expected.includes(actual);
    case "StringNotLike":
    case "ArnNotLike":
      return !expected.some(like);
    case "StringEqualsIgnoreCase":
      return expected.some((e) => e.toLowerCase() === actual.toLowerCase());
    case "Bool":
      return expected.includes(actual);
    default:
      throw new Error(`condition operator ${operator} is not modelled`);
  }
}

function statementMatches(s: PolicyStatement, request: AccessRequest): boolean {
  const actionHit = s.NotAction
    ? !list(s.NotAction).some((a) => wildcardMatch(a, request.action, { caseInsensitive: true }))
    : list(s.Action).some((a) => wildcardMatch(a, request.action, { caseInsensitive: true }));
  if (!actionHit) return false;
  const resourceHit = s.NotResource
    ? !list(s.NotResource).some((r) => wildcardMatch(r, request.resource))
    : list(s.Resource).some((r) => wildcardMatch(r, request.resource));
  if (!resourceHit) return false;
  return Object.entries(s.Condition ?? {}).every(([operator, keys]) =>
    Object.entries(keys).every(([key, expected]) => conditionHolds(operator, { key, expected: list(expected), context: request.context ?? {} })),
  );
}

/** "allowed", or why not: "explicitly denied" / "no statement allows". */
export function evaluate(statements: PolicyStatement[], request: AccessRequest): { allowed: boolean; reason: string } {
  if (statements.some((s) => s.Effect === "Deny" && statementMatches(s, request))) return { allowed: false, reason: "explicitly denied" };
  if (statements.some((s) => s.Effect === "Allow" && statementMatches(s, request))) return { allowed: true, reason: "allowed" };
  return { allowed: false, reason: `no identity-based policy allows the ${request.action} action on ${request.resource}` };
}

/** Template intrinsics → strings: `resolve(id, attribute)` names a resource's `Ref` / `GetAtt` value. */
export function renderPolicyValue(value: unknown, resolve: (id: string, attribute: string) => string, pseudo: Record<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => renderPolicyValue(v, resolve, pseudo));
  if (value && typeof value === "object") {
    const v = value as Record<string, any>;
    if (typeof v.Ref === "string") return v.Ref.startsWith("AWS::") ? pseudo[v.Ref]! : resolve(v.Ref, "Ref");
    if (Array.isArray(v["Fn::GetAtt"])) return resolve(v["Fn::GetAtt"][0], v["Fn::GetAtt"][1]);
    if (Array.isArray(v["Fn::Join"])) return (renderPolicyValue(v["Fn::Join"][1], resolve, pseudo) as string[]).join(v["Fn::Join"][0]);
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, renderPolicyValue(x, resolve, pseudo)]));
  }
  return value;
}
