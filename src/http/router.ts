import type { IncomingMessage, ServerResponse } from 'node:http';

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** Values of `{name}` segments in the route path. */
  params: Record<string, string>;
}

export type Handler = (ctx: RouteContext) => Promise<void> | void;

interface Route {
  method: string;
  segments: string[];
  handler: Handler;
}

/** A minimal method + path router: literal segments and `{param}` segments, nothing else. */
export class Router {
  private readonly routes: Route[] = [];

  add(method: string, path: string, handler: Handler): this {
    this.routes.push({ method, segments: path.split('/').filter(Boolean), handler });
    return this;
  }

  /** The matching handler; `methodNotAllowed` when the path exists under another method. */
  match(
    method: string,
    pathname: string,
  ): { handler: Handler; params: Record<string, string> } | 'methodNotAllowed' | undefined {
    const parts = pathname.split('/').filter(Boolean);
    let pathMatched = false;
    for (const route of this.routes) {
      const params = matchSegments(route.segments, parts);
      if (!params) continue;
      if (route.method === method) return { handler: route.handler, params };
      pathMatched = true;
    }
    return pathMatched ? 'methodNotAllowed' : undefined;
  }
}

function matchSegments(route: string[], parts: string[]): Record<string, string> | undefined {
  if (route.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < route.length; i++) {
    const seg = route[i]!;
    if (seg.startsWith('{') && seg.endsWith('}')) {
      try {
        params[seg.slice(1, -1)] = decodeURIComponent(parts[i]!);
      } catch {
        return undefined;
      }
    } else if (seg !== parts[i]) return undefined;
  }
  return params;
}
