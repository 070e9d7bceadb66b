import { describe, expect, it } from 'vitest';
import { commandEventTypes, commandModules } from '@paperlink/command-api';
import { allProjections, projectionModules } from '@paperlink/projections';
import { queryModules } from '@paperlink/query-api';
import { features } from '../../infra/src/features';
import { allReactions } from '../../infra/src/reactions';

interface Layer {
  route?: { path: unknown; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** `METHOD /path` of every route a handler serves, found by walking its routers. */
function routesOf(handlers: unknown[]): string[] {
  const walk = (stack: Layer[]): string[] => stack.flatMap((layer) => {
    if (layer.route) return Object.keys(layer.route.methods).filter((m) => layer.route!.methods[m] && m !== '_all').map((m) => `${m.toUpperCase()} ${String(layer.route!.path)}`);
    return layer.handle?.stack ? walk(layer.handle.stack) : [];
  });
  return handlers.flatMap((h) => walk((h as { stack?: Layer[] }).stack ?? []));
}

/**
 * Stands in for any dependency: a router factory keeps its deps for its handlers, which this
 * test never calls (keys and secrets it derives at once are given as bytes). Every other
 * property is another stand-in, every call returns one.
 */
const anything: unknown = new Proxy(function stand() {}, {
  get: (_t, key) => (key === 'then' ? undefined : typeof key === 'string' && /key|secret/i.test(key) ? Buffer.alloc(32, 1) : anything),
  apply: () => anything,
});

const sorted = (xs: string[]) => [...xs].sort();
const documented = (ops: Array<{ method: string; path: string }>) => sorted(ops.map((op) => `${op.method.toUpperCase()} ${op.path}`));

describe('the feature modules', () => {
  it('belong each to one feature of infra/src/features.ts, under its name', () => {
    const owners = (modules: ReadonlyArray<{ feature: string }>, pick: (f: (typeof features)[number]) => unknown) =>
      modules.map((m) => features.filter((f) => pick(f) === m).map((f) => `${f.feature}:${m.feature}`));
    for (const list of [owners(commandModules, (f) => f.commands), owners(queryModules, (f) => f.queries), owners(projectionModules, (f) => f.projections)]) {
      for (const owner of list) {
        expect(owner).toHaveLength(1);
        const [feature, module] = owner[0]!.split(':');
        expect(module).toBe(feature);
      }
    }
    expect(new Set(features.map((f) => f.feature)).size).toBe(features.length);
  });

  it('serve exactly the routes they document, each route in one module', () => {
    const all: string[] = [];
    for (const m of [...commandModules, ...queryModules]) {
      const ops = documented(m.operations);
      all.push(...ops);
      if (!m.routers) continue;
      const served = routesOf([...m.routers(anything as never), ...('publicRouters' in m && m.publicRouters ? m.publicRouters(anything as never) : [])]);
      expect(sorted([...new Set(served)]), `${m.feature}: routes served vs documented`).toEqual(ops);
    }
    expect(all.length).toBeGreaterThan(55);
    expect(new Set(all).size, 'a route documented by two modules').toBe(all.length);
  });

  it('declare every event type a projection handles, each by one module', () => {
    const declared = commandModules.flatMap((m) => [...m.events]);
    expect(new Set(declared).size, 'an event type declared by two modules').toBe(declared.length);
    const handled = allProjections().flatMap((p) => [...p.handles]);
    expect([...new Set(handled)].filter((t) => !commandEventTypes.includes(t)), 'handled but declared by no module').toEqual([]);
  });

  it('register every projection once, and the projector thread runs the reactions the features name', () => {
    const names = allProjections().map((p) => p.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBeGreaterThanOrEqual(14);
    expect(sorted(features.flatMap((f) => (f.reactions ?? []).map((r) => r.name)))).toEqual(sorted(allReactions.map((r) => r.name)));
  });
});
