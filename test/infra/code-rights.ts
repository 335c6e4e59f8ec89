import path from "node:path";
import ts from "typescript";
import { REPO_ROOT } from "../support/machine.js";

/**
 * What each deployed bundle can ask of AWS, read from the source: from the bundle's entry, every
 * function, method and module that can run (a reachability walk over the TypeScript program, with the
 * type checker resolving each reference to its declaration), and in that code every `new XCommand(…)`
 * of an `@aws-sdk/*` package and every key a blob is written or deleted under.
 *
 * Reachability is conservative where the code is indirect: a call through an interface reaches every
 * class and object literal of ours that implements it, a reference to a function (called or passed on)
 * reaches it, a module reached is evaluated whole, and a function written inline is walked with its
 * surroundings. So a command is never missed for being called through a port; what can be reported in
 * excess is a command on a path the deployed configuration never takes, which the rights table says
 * in words (RIGHTS_BY_SETTING).
 */

export interface CommandSite {
  /** The SDK package, e.g. `@aws-sdk/client-sqs` or `@aws-sdk/lib-dynamodb`. */
  pkg: string;
  /** The command's class name, e.g. `SendMessageCommand`. */
  command: string;
  /** Where it is constructed, `file:line` from the repository root. */
  at: string;
}

export interface BlobKeySite {
  op: "put" | "delete";
  /** The key's first path segment followed by `/`, or `*` when the code does not say it statically. */
  prefix: string;
  at: string;
}

export interface BundleUsage {
  commands: CommandSite[];
  /** String literals of reached code naming an endpoint of interest (e.g. the ECS agent's task-protection path). */
  literals: { text: string; at: string }[];
  blobKeys: BlobKeySite[];
  /** Source files of ours the walk reached (for the report). */
  files: number;
}

type FunctionLike = ts.FunctionLikeDeclaration;

/** A call seen in reached code: a blob write or delete (`op`, `key`), or a call of a function of ours that may forward a key (`target`). */
interface BlobCall {
  op: BlobKeySite["op"] | null;
  key: ts.Expression | null;
  call: ts.CallExpression;
  target: FunctionLike | null;
}

const isOurs = (file: ts.SourceFile) => !file.isDeclarationFile && !file.fileName.includes("/node_modules/");
const rel = (node: ts.Node) => {
  const file = node.getSourceFile();
  const { line } = file.getLineAndCharacterOfPosition(node.getStart());
  return `${path.relative(REPO_ROOT, file.fileName)}:${line + 1}`;
};
const isFunctionLike = (node: ts.Node): node is FunctionLike =>
  ts.isFunctionDeclaration(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessorDeclaration(node) ||
  ts.isSetAccessorDeclaration(node) ||
  ts.isFunctionExpression(node) ||
  ts.isArrowFunction(node);

/** The name a member or property is declared under, when it is a plain one. */
function memberName(node: ts.Node): string | undefined {
  const name = (node as { name?: ts.Node }).name;
  return name && (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isPrivateIdentifier(name)) ? name.text : undefined;
}

export class CodeRights {
  private readonly program: ts.Program;
  private readonly checker: ts.TypeChecker;
  /** Members of our classes and object literals by name: the candidates for a call through an interface. */
  private readonly membersByName = new Map<string, ts.Node[]>();
  private readonly implementationCache = new Map<ts.Symbol, ts.Node[]>();
  /** For each region reached in the last walk, the region whose code reached it (the "why" of a command). */
  private readonly reachedFrom = new Map<ts.Node, ts.Node | null>();
  private literalsOfInterest: string[] = [];
  private readonly usageMemo = new Map<string, BundleUsage>();
  private literalsFound: BundleUsage["literals"] = [];

  /** The chain of regions from the entry to the code at `site` (`file:line`), for a report of why a bundle needs a right. */
  why(site: string): string[] {
    const [file, line] = site.split(":");
    const region = [...this.reachedFrom.keys()]
      .filter(
        (n) =>
          rel(n).startsWith(`${file}:`) &&
          n.getSourceFile().getLineAndCharacterOfPosition(n.getStart()).line + 1 <= Number(line) &&
          n.getSourceFile().getLineAndCharacterOfPosition(n.getEnd()).line + 1 >= Number(line),
      )
      .sort((a, b) => a.getWidth() - b.getWidth())[0];
    const chain: string[] = [];
    for (let n: ts.Node | null | undefined = region; n && chain.length < 40; n = this.reachedFrom.get(n)) chain.push(describe(n));
    return chain;
  }

  constructor(entries: string[]) {
    const configFile = ts.readConfigFile(path.join(REPO_ROOT, "tsconfig.json"), ts.sys.readFile);
    const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, REPO_ROOT);
    this.program = ts.createProgram({ rootNames: entries.map((e) => path.join(REPO_ROOT, e)), options: { ...parsed.options, noEmit: true } });
    this.checker = this.program.getTypeChecker();
    for (const file of this.program.getSourceFiles().filter(isOurs)) {
      const visit = (node: ts.Node) => {
        const members = ts.isClassLike(node) ? node.members : ts.isObjectLiteralExpression(node) ? node.properties : undefined;
        if (members) {
          for (const m of members) {
            const name = memberName(m);
            if (name) this.membersByName.set(name, [...(this.membersByName.get(name) ?? []), m]);
          }
        }
        ts.forEachChild(node, visit);
      };
      visit(file);
    }
  }

  /** Everything the bundle whose entry is `entry` (repository-relative) can do, walked from its module. */
  usage(entries: string | string[], literalsOfInterest: string[] = []): BundleUsage {
    const memoKey = JSON.stringify([entries, literalsOfInterest]);
    const memo = this.usageMemo.get(memoKey);
    if (memo) return memo;
    const result = this.walkFrom(entries, literalsOfInterest);
    this.usageMemo.set(memoKey, result);
    return result;
  }

  private walkFrom(entries: string | string[], literalsOfInterest: string[]): BundleUsage {
    const starts = [entries].flat().map((entry) => {
      const file = this.program.getSourceFile(path.join(REPO_ROOT, entry));
      if (!file) throw new Error(`${entry}: not in the program`);
      return file;
    });
    this.reachedFrom.clear();
    // A bundle runs only modules it imports: nothing outside its import graph is reached, whatever
    // implements a port it calls elsewhere.
    const modules = this.importGraph(starts);
    const reached = new Set<ts.Node>();
    const queue: ts.Node[] = [];
    let current: ts.Node | null = null;
    const reach = (node: ts.Node | undefined) => {
      if (!node || reached.has(node) || !isOurs(node.getSourceFile()) || !modules.has(node.getSourceFile().fileName)) return;
      reached.add(node);
      queue.push(node);
      this.reachedFrom.set(node, current);
      // Reaching anything of a module evaluates the module.
      const file = node.getSourceFile();
      if (!reached.has(file)) {
        reached.add(file);
        queue.push(file);
        this.reachedFrom.set(file, node);
      }
    };
    const commands: CommandSite[] = [];
    const blobCalls: BlobCall[] = [];
    const literals: BundleUsage["literals"] = [];
    this.literalsOfInterest = literalsOfInterest;
    this.literalsFound = literals;
    for (const start of starts) reach(start);
    while (queue.length > 0) {
      const region = queue.shift()!;
      current = region;
      this.walk(region, reach, commands, blobCalls);
    }
    const files = new Set([...reached].map((n) => n.getSourceFile().fileName)).size;
    return { commands: dedupe(commands), literals: dedupe(literals), blobKeys: dedupe(this.resolveBlobKeys(blobCalls)), files };
  }

  /**
   * The modules of ours a bundle's entries import, transitively: static imports and re-exports (not
   * `import type`) and dynamic `import("…")` of a literal specifier, resolved as TypeScript resolves them.
   */
  private importGraph(starts: ts.SourceFile[]): Set<string> {
    const seen = new Set<string>();
    const queue = [...starts];
    const options = this.program.getCompilerOptions();
    while (queue.length > 0) {
      const file = queue.pop()!;
      if (seen.has(file.fileName)) continue;
      seen.add(file.fileName);
      const specifiers: string[] = [];
      const visit = (node: ts.Node): void => {
        if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly && ts.isStringLiteral(node.moduleSpecifier))
          specifiers.push(node.moduleSpecifier.text);
        else if (ts.isExportDeclaration(node) && !node.isTypeOnly && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
          specifiers.push(node.moduleSpecifier.text);
        else if (
          ts.isCallExpression(node) &&
          node.expression.kind === ts.SyntaxKind.ImportKeyword &&
          node.arguments[0] &&
          ts.isStringLiteralLike(node.arguments[0])
        ) {
          specifiers.push(node.arguments[0].text);
        }
        ts.forEachChild(node, visit);
      };
      visit(file);
      for (const specifier of specifiers) {
        const resolved = ts.resolveModuleName(specifier, file.fileName, options, ts.sys).resolvedModule?.resolvedFileName;
        const target = resolved ? this.program.getSourceFile(resolved) : undefined;
        if (target && isOurs(target) && !seen.has(target.fileName)) queue.push(target);
      }
    }
    return seen;
  }

  /** A region's code, nested functions included, except named ones (reached when referenced). */
  private walk(region: ts.Node, reach: (node: ts.Node | undefined) => void, commands: CommandSite[], blobCalls: BlobCall[]): void {
    const visit = (node: ts.Node): void => {
      if (node !== region && this.isNamedBody(node)) return;
      // Types never run: an annotation reaches nothing.
      if (ts.isTypeNode(node) || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isImportDeclaration(node)) return;
      if (ts.isNewExpression(node)) this.recordCommand(node, commands);
      if (
        ts.isStringLiteral(node) ||
        ts.isNoSubstitutionTemplateLiteral(node) ||
        ts.isTemplateHead(node) ||
        ts.isTemplateMiddle(node) ||
        ts.isTemplateTail(node)
      ) {
        for (const text of this.literalsOfInterest) if (node.text.includes(text)) this.literalsFound.push({ text, at: rel(node) });
      }
      if (ts.isCallExpression(node)) this.recordBlobCall(node, blobCalls);
      if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) {
        const symbol = this.symbolOf(node);
        if (symbol) for (const declaration of this.implementations(symbol)) reach(this.runnable(declaration));
      }
      if (ts.isNewExpression(node) || ts.isDecorator(node)) {
        const symbol = this.symbolOf(ts.isNewExpression(node) ? node.expression : node.expression);
        for (const d of symbol?.declarations ?? []) if (ts.isClassLike(d)) this.reachClass(d, reach);
      }
      ts.forEachChild(node, visit);
    };
    if (ts.isSourceFile(region)) {
      // A module's own statements run on import; declarations in it run when referenced.
      for (const statement of region.statements) visit(statement);
    } else if (isFunctionLike(region)) {
      for (const p of region.parameters) visit(p);
      if (region.body) visit(region.body);
    } else if (ts.isClassLike(region)) {
      this.reachClass(region, reach);
    } else {
      visit(region);
    }
  }

  /** Code that runs only when its name is referenced: declared functions, methods, class members, `const f = () => …`. */
  private isNamedBody(node: ts.Node): boolean {
    if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isConstructorDeclaration(node) || ts.isGetAccessorDeclaration(node)) return true;
    if (ts.isSetAccessorDeclaration(node) || ts.isClassDeclaration(node) || ts.isPropertyDeclaration(node)) return true;
    if ((ts.isArrowFunction(node) || ts.isFunctionExpression(node)) && node.parent) {
      const p = node.parent;
      if (ts.isVariableDeclaration(p) && p.initializer === node) return true;
      if (ts.isPropertyAssignment(p) && p.initializer === node) return true;
    }
    return false;
  }

  /** Constructing a class runs its constructor (and its base's) and its field initializers. */
  private reachClass(cls: ts.ClassLikeDeclaration, reach: (node: ts.Node | undefined) => void): void {
    for (const m of cls.members) {
      if (ts.isConstructorDeclaration(m)) reach(m);
      if (ts.isPropertyDeclaration(m) && m.initializer) reach(m.initializer);
      if (ts.isClassStaticBlockDeclaration(m)) reach(m.body);
    }
    for (const clause of cls.heritageClauses ?? []) {
      if (clause.token !== ts.SyntaxKind.ExtendsKeyword) continue;
      for (const t of clause.types) for (const d of this.symbolOf(t.expression)?.declarations ?? []) if (ts.isClassLike(d)) this.reachClass(d, reach);
    }
  }

  private symbolOf(node: ts.Node): ts.Symbol | undefined {
    let symbol =
      ts.isShorthandPropertyAssignment(node.parent) && node.parent.name === node
        ? this.checker.getShorthandAssignmentValueSymbol(node.parent)
        : this.checker.getSymbolAtLocation(node);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = this.checker.getAliasedSymbol(symbol);
    return symbol;
  }

  /**
   * The declarations a reference can run: its own, and for an interface or type member (a call through
   * a port) every member of that name of our classes and object literals whose type satisfies the port;
   * for a class method, the overrides in subclasses.
   */
  private implementations(symbol: ts.Symbol): ts.Node[] {
    const cached = this.implementationCache.get(symbol);
    if (cached) return cached;
    const out: ts.Node[] = [];
    this.implementationCache.set(symbol, out);
    for (const d of symbol.declarations ?? []) {
      out.push(d);
      const name = memberName(d);
      if (!name || !isOurs(d.getSourceFile())) continue;
      if (ts.isMethodSignature(d) || ts.isPropertySignature(d)) {
        const owner = this.ownerType(d.parent);
        if (!owner) continue;
        const ownerSymbol = owner.getSymbol() ?? owner.aliasSymbol;
        for (const candidate of this.membersByName.get(name) ?? []) {
          const container = candidate.parent;
          const code = isFunctionLike(candidate) ? candidate : this.functionValue(candidate);
          if (!code) continue;
          if (ts.isObjectLiteralExpression(container)) {
            // An object literal written for the port (its contextual type is the port, generic or not), or one that fits it.
            const contextual = this.checker.getContextualType(container);
            const parts = contextual ? (contextual.isUnion() ? contextual.types : [contextual]) : [];
            const written = parts.some((t) => {
              const symbol = t.getSymbol() ?? t.aliasSymbol;
              return !!symbol && !!ownerSymbol && symbol === ownerSymbol;
            });
            if (written || this.checker.isTypeAssignableTo(this.checker.getTypeAtLocation(container), owner)) out.push(code);
          } else {
            const type = ts.isClassLike(container) ? this.instanceType(container) : undefined;
            if (type && this.checker.isTypeAssignableTo(type, owner)) out.push(code);
          }
        }
      } else if (ts.isMethodDeclaration(d) && ts.isClassLike(d.parent)) {
        const base = d.parent;
        for (const candidate of this.membersByName.get(name) ?? []) {
          if (ts.isClassLike(candidate.parent) && candidate.parent !== base && this.extendsClass(candidate.parent, base)) out.push(candidate);
        }
      }
    }
    return out;
  }

  /** The type an interface or type literal declares (what an implementation must be assignable to). */
  private ownerType(owner: ts.Node): ts.Type | undefined {
    if (ts.isInterfaceDeclaration(owner)) {
      const symbol = this.checker.getSymbolAtLocation(owner.name);
      return symbol ? this.checker.getDeclaredTypeOfSymbol(symbol) : undefined;
    }
    if (ts.isTypeLiteralNode(owner)) return this.checker.getTypeAtLocation(owner);
    return undefined;
  }

  private instanceType(cls: ts.ClassLikeDeclaration): ts.Type | undefined {
    const symbol = cls.name ? this.checker.getSymbolAtLocation(cls.name) : undefined;
    return symbol ? this.checker.getDeclaredTypeOfSymbol(symbol) : undefined;
  }

  private extendsClass(cls: ts.ClassLikeDeclaration, base: ts.ClassLikeDeclaration, depth = 0): boolean {
    if (depth > 10) return false;
    for (const clause of cls.heritageClauses ?? []) {
      if (clause.token !== ts.SyntaxKind.ExtendsKeyword) continue;
      for (const t of clause.types) {
        for (const d of this.symbolOf(t.expression)?.declarations ?? []) {
          if (d === base || (ts.isClassLike(d) && this.extendsClass(d, base, depth + 1))) return true;
        }
      }
    }
    return false;
  }

  /**
   * The code a declaration stands for: a function's body, a variable's or property's function value;
   * for anything else (a value, a class, a type) its module, which evaluates it. A value property's
   * initializer runs where its object literal is written, which is walked with its region.
   */
  private runnable(d: ts.Node): ts.Node | undefined {
    if (isFunctionLike(d)) return d;
    const value = this.functionValue(d);
    if (value) return value;
    return d.getSourceFile();
  }

  /** A declaration whose value is a function: `const f = () => …`, `{ f: () => … }`, `{ f }` naming one, a class field arrow. */
  private functionValue(d: ts.Node): ts.Node | undefined {
    if ((ts.isVariableDeclaration(d) || ts.isPropertyAssignment(d) || ts.isPropertyDeclaration(d)) && d.initializer) {
      const init = d.initializer;
      if (isFunctionLike(init)) return init;
      if (ts.isConditionalExpression(init)) return [init.whenTrue, init.whenFalse].find(isFunctionLike);
      if (ts.isPropertyAssignment(d) && ts.isIdentifier(init))
        return this.symbolOf(init)
          ?.declarations?.map((x) => this.functionValue(x) ?? (isFunctionLike(x) ? x : undefined))
          .find(Boolean);
    }
    if (ts.isShorthandPropertyAssignment(d)) {
      const target = this.checker.getShorthandAssignmentValueSymbol(d);
      return target?.declarations?.map((x) => (isFunctionLike(x) ? x : this.functionValue(x))).find(Boolean);
    }
    return undefined;
  }

  private recordCommand(node: ts.NewExpression, commands: CommandSite[]): void {
    const target = ts.isPropertyAccessExpression(node.expression) ? node.expression.name : node.expression;
    const symbol = this.symbolOf(target);
    for (const d of symbol?.declarations ?? []) {
      const match = /\/node_modules\/(@aws-sdk\/[^/]+)\//.exec(d.getSourceFile().fileName);
      const name = symbol!.getName();
      if (match && name.endsWith("Command")) commands.push({ pkg: match[1]!, command: name, at: rel(node) });
    }
  }

  /**
   * Blob writes and deletes, as calls seen in reached code: `put(key, …)` / `delete(key)` on a
   * BlobStore, `storePayload(blobs, key, …)`, `deleteStoredBlob(blobs, prefix, key)` (a key read back
   * from an item, checked at run time to be under `prefix`), and calls of any function of ours that
   * passes one of its parameters on as such a key (resolved after the walk, `resolveBlobKeys`).
   */
  private recordBlobCall(call: ts.CallExpression, calls: BlobCall[]): void {
    const callee = call.expression;
    const name = ts.isPropertyAccessExpression(callee) ? callee.name : callee;
    if (ts.isPropertyAccessExpression(callee) && ["put", "delete"].includes(callee.name.text)) {
      const receiver = this.checker.getTypeAtLocation(callee.expression);
      const isBlobStore = [receiver, ...(receiver.isUnion() ? receiver.types : [])].some((t) => /\bBlobStore\b/.test(this.checker.typeToString(t)));
      if (isBlobStore && call.arguments[0]) {
        calls.push({ op: callee.name.text === "put" ? "put" : "delete", key: call.arguments[0], call, target: null });
        return;
      }
    }
    if (ts.isIdentifier(name) && name.text === "deleteStoredBlob" && call.arguments[1]) {
      calls.push({ op: "delete", key: call.arguments[1], call, target: null });
      return;
    }
    const symbol = this.symbolOf(name);
    const targets = symbol
      ? this.implementations(symbol)
          .map((d) => (isFunctionLike(d) ? d : this.functionValue(d)))
          .filter((d): d is FunctionLike => !!d && isFunctionLike(d))
      : [];
    for (const target of targets) if (isOurs(target.getSourceFile())) calls.push({ op: null, key: null, call, target });
  }

  /**
   * Keys of the blob calls seen: a call whose key is a parameter of the function it is in makes that
   * function a key sink (its callers' argument is the key); repeated until nothing changes, so a key
   * passed through storeModelNames → storePayload → put is read where it is built.
   */
  private resolveBlobKeys(calls: BlobCall[]): BlobKeySite[] {
    const sinks = new Map<FunctionLike, Map<number, BlobKeySite["op"]>>();
    const sites: BlobKeySite[] = [];
    const enclosingParameter = (expr: ts.Expression): { fn: FunctionLike; index: number } | null => {
      if (!ts.isIdentifier(expr)) return null;
      const d = this.symbolOf(expr)?.declarations?.[0];
      if (!d || !ts.isParameter(d) || !isFunctionLike(d.parent)) return null;
      let n: ts.Node | undefined = expr.parent;
      while (n && n !== d.parent) n = n.parent;
      return n ? { fn: d.parent, index: d.parent.parameters.indexOf(d) } : null;
    };
    const direct: { op: BlobKeySite["op"]; key: ts.Expression; call: ts.CallExpression }[] = calls
      .filter((c) => c.op && c.key)
      .map((c) => ({ op: c.op!, key: c.key!, call: c.call }));
    for (let changed = true; changed; ) {
      changed = false;
      for (const c of calls.filter((x) => x.target)) {
        for (const [index, op] of sinks.get(c.target!) ?? []) {
          const key = c.call.arguments[index];
          if (key && !direct.some((d) => d.call === c.call && d.key === key)) {
            direct.push({ op, key, call: c.call });
            changed = true;
          }
        }
      }
      for (const d of direct) {
        const forwarded = enclosingParameter(d.key);
        if (!forwarded || (ts.isFunctionDeclaration(forwarded.fn) && forwarded.fn.name?.text === "deleteStoredBlob")) continue;
        const known = sinks.get(forwarded.fn) ?? new Map();
        if (known.get(forwarded.index) !== d.op) {
          known.set(forwarded.index, d.op);
          sinks.set(forwarded.fn, known);
          changed = true;
        }
      }
    }
    for (const d of direct) {
      if (enclosingParameter(d.key)) continue; // read at the callers
      for (const prefix of this.keyPrefixes(d.key, 0)) sites.push({ op: d.op, prefix, at: rel(d.call) });
    }
    return sites;
  }

  /** The first path segments (`results/`, …) a key expression can start with; `*` when it does not say. */
  private keyPrefixes(expr: ts.Expression, depth: number): Set<string> {
    const unknown = new Set(["*"]);
    if (depth > 6) return unknown;
    const segment = (text: string) => new Set([/^[a-z][a-z0-9-]*\//.exec(text)?.[0] ?? "*"]);
    if (ts.isStringLiteral(expr) || ts.isNoSubstitutionTemplateLiteral(expr)) return segment(expr.text);
    if (ts.isTemplateExpression(expr)) return segment(expr.head.text);
    if (ts.isParenthesizedExpression(expr) || ts.isAsExpression(expr) || ts.isAwaitExpression(expr)) return this.keyPrefixes(expr.expression, depth);
    if (ts.isConditionalExpression(expr)) return new Set([...this.keyPrefixes(expr.whenTrue, depth + 1), ...this.keyPrefixes(expr.whenFalse, depth + 1)]);
    if (ts.isCallExpression(expr)) {
      const symbol = this.symbolOf(ts.isPropertyAccessExpression(expr.expression) ? expr.expression.name : expr.expression);
      const out = new Set<string>();
      for (const d of symbol ? this.implementations(symbol) : []) {
        const fn = isFunctionLike(d) ? d : this.functionValue(d);
        if (!fn || !isFunctionLike(fn) || !fn.body) continue;
        if (!ts.isBlock(fn.body)) for (const p of this.keyPrefixes(fn.body, depth + 1)) out.add(p);
        else {
          const find = (n: ts.Node): void => {
            if (ts.isReturnStatement(n) && n.expression) for (const p of this.keyPrefixes(n.expression, depth + 1)) out.add(p);
            else if (!isFunctionLike(n)) n.forEachChild(find);
          };
          fn.body.forEachChild(find);
        }
      }
      return out.size > 0 ? out : unknown;
    }
    if (ts.isIdentifier(expr) || ts.isPropertyAccessExpression(expr)) {
      const d = this.symbolOf(ts.isPropertyAccessExpression(expr) ? expr.name : expr)?.declarations?.[0];
      if (d && ts.isVariableDeclaration(d) && d.initializer) return this.keyPrefixes(d.initializer, depth + 1);
    }
    return unknown;
  }
}

function describe(node: ts.Node): string {
  const name = ts.isSourceFile(node) ? "(module)" : (memberName(node) ?? (node.parent ? memberName(node.parent) : undefined) ?? ts.SyntaxKind[node.kind]);
  return `${name} @ ${rel(node)}`;
}

function dedupe<T>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = JSON.stringify(item);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
