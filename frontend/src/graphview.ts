// The graph drawn with sigma (WebGL) over a graphology graph: nodes coloured by type, edge
// labels with the relation types, a click selects, a double click expands a node by its
// neighbourhood. Layout: new nodes start around the node they were reached from, then
// ForceAtlas2 settles the picture: a few iterations at once on small graphs, else in a web
// worker (Barnes-Hut) that stops when the nodes have nearly stopped moving.

import Graph from "graphology";
import forceAtlas2 from "graphology-layout-forceatlas2";
import FA2Layout from "graphology-layout-forceatlas2/worker";
import Sigma from "sigma";
import type { Neighbourhood } from "./api";
import { colourOf } from "./colours";

export interface NodeAttributes {
  label: string;
  /** The entity's type (not ``type``, which sigma reads as the node's drawing program). */
  kind: string;
  x: number;
  y: number;
  size: number;
  color: string;
  expanded: boolean;
}

export interface EdgeAttributes {
  label: string;
  types: string[];
  size: number;
  color: string;
  weak: boolean;
}

const CO_OCCURS = "CO_OCCURS_WITH";
/** Above this many nodes the layout runs in a web worker (the page stays responsive);
 * below, at once: a worker's layout redraws the graph at every step, which costs more
 * frames on a few hundred nodes than a few iterations at once (measured without a GPU). */
const WORKER_ABOVE = 500;
/** How often the worker's progress is looked at, and the shortest and longest it runs, in
 * milliseconds (the worker needs a moment to start moving nodes). */
const LAYOUT_CHECK_MS = 250;
const LAYOUT_MIN_MS = 750;
const LAYOUT_MAX_MS = 2000;
/** The layout has settled when, between two looks, nodes moved this share of the graph's
 * extent on average. */
const SETTLED_SHARE = 0.002;
/** Above this many edges they are hidden while the camera moves (drawing them is most of
 * a frame's cost without a GPU); above this many nodes or edges, labels too. */
const EDGES_HIDDEN_ABOVE = 400;
const LIGHT_ABOVE = 1500;

export class GraphView {
  readonly graph = new Graph<NodeAttributes, EdgeAttributes>({ type: "directed", multi: false });
  readonly renderer: Sigma<NodeAttributes, EdgeAttributes>;
  private focus: string | null = null;
  private hovered: string | null = null;
  private worker: FA2Layout | null = null;
  private workerTimer = 0;
  /** How the last layout ended: settled (nodes nearly still) or stopped at its time limit. */
  layoutEnd: "settled" | "time" | null = null;

  constructor(
    container: HTMLElement,
    private readonly handlers: { select(name: string): void; expand(name: string): void },
  ) {
    this.renderer = new Sigma(this.graph, container, {
      renderEdgeLabels: true,
      defaultEdgeType: "arrow",
      labelDensity: 0.6,
      stagePadding: 60,
      labelRenderedSizeThreshold: 6,
      edgeLabelSize: 11,
      labelSize: 13,
      zIndex: true,
      nodeReducer: (node, data) => this.nodeLook(node, data),
      edgeReducer: (edge, data) => this.edgeLook(edge, data),
    });
    this.renderer.on("clickNode", ({ node }) => this.handlers.select(node));
    this.renderer.on("doubleClickNode", (event) => {
      event.preventSigmaDefault();
      this.handlers.expand(event.node);
    });
    this.renderer.on("enterNode", ({ node }) => this.hover(node));
    this.renderer.on("leaveNode", () => this.hover(null));
  }

  /** Removes every node (a new centre, scope or time). */
  clear(): void {
    this.stopLayout();
    this.graph.clear();
    this.focus = null;
  }

  /** Shows the whole graph (the camera back to its home position). */
  fit(): void {
    this.renderer.getCamera().setState({ x: 0.5, y: 0.5, ratio: 1, angle: 0 });
  }

  /** Adds a neighbourhood's entities and relations; returns how many nodes were new. */
  add(found: Neighbourhood): number {
    const before = this.graph.order;
    const centre = found.centre;
    const origin = this.graph.hasNode(centre)
      ? this.graph.getNodeAttributes(centre)
      : { x: 0, y: 0 };
    const fresh = found.entities.filter((e) => !this.graph.hasNode(e.name));
    fresh.forEach((entity, i) => {
      const angle = (2 * Math.PI * i) / Math.max(1, fresh.length);
      const radius = entity.name === centre ? 0 : 1 + entity.distance * (1 + Math.random() * 0.5);
      this.graph.addNode(entity.name, {
        label: entity.name,
        kind: entity.type,
        x: origin.x + radius * Math.cos(angle),
        y: origin.y + radius * Math.sin(angle),
        size: 5,
        color: colourOf(entity.type),
        expanded: false,
      });
    });
    if (this.graph.hasNode(centre)) this.graph.setNodeAttribute(centre, "expanded", true);
    for (const relation of found.relations) this.link(relation.source, relation.type, relation.target);
    this.resize();
    this.settle(fresh.length);
    this.renderer.refresh();
    return this.graph.order - before;
  }

  private link(source: string, type: string, target: string): void {
    if (!this.graph.hasNode(source) || !this.graph.hasNode(target) || source === target) return;
    const existing = this.graph.edge(source, target);
    if (existing === undefined) {
      const weak = type === CO_OCCURS;
      this.graph.addDirectedEdge(source, target, {
        label: weak ? "" : type,
        types: [type],
        size: weak ? 0.6 : 1.6,
        color: weak ? "#d0d4da" : "#8a94a6",
        weak,
      });
      return;
    }
    const attributes = this.graph.getEdgeAttributes(existing);
    if (attributes.types.includes(type)) return;
    const types = [...attributes.types, type];
    const strong = types.filter((t) => t !== CO_OCCURS);
    this.graph.mergeEdgeAttributes(existing, {
      types,
      label: strong.join(", "),
      weak: strong.length === 0,
      size: strong.length ? 1.6 : 0.6,
      color: strong.length ? "#8a94a6" : "#d0d4da",
    });
  }

  /** Node sizes by degree; smaller on large graphs so nodes do not cover each other. */
  private resize(): void {
    const order = this.graph.order;
    const base = order > 1000 ? 1.5 : order > 300 ? 2.5 : 4;
    const scale = order > 1000 ? 0.8 : 2.2;
    this.graph.forEachNode((node, attributes) => {
      const size = base + scale * Math.log2(1 + this.graph.degree(node)) + (attributes.expanded ? 2 : 0);
      this.graph.setNodeAttribute(node, "size", Math.min(size, 22));
    });
  }

  /** Whether the layout is still moving nodes (tests wait for it). */
  get moving(): boolean {
    return this.worker !== null;
  }

  private settle(added: number): void {
    const large = this.graph.order > LIGHT_ABOVE || this.graph.size > LIGHT_ABOVE;
    this.renderer.setSetting("hideEdgesOnMove", large || this.graph.size > EDGES_HIDDEN_ABOVE);
    this.renderer.setSetting("hideLabelsOnMove", large);
    if (this.graph.order < 2 || added === 0) return;
    const settings = forceAtlas2.inferSettings(this.graph);
    if (this.graph.order <= WORKER_ABOVE) {
      // exact forces: on a few hundred nodes Barnes-Hut took longer (54 ms, not 32, a step)
      forceAtlas2.assign(this.graph, { iterations: 120, settings: { ...settings, slowDown: 2 } });
      this.layoutEnd = "settled";
      return;
    }
    this.stopLayout();
    this.layoutEnd = null;
    this.worker = new FA2Layout(this.graph, {
      settings: { ...settings, barnesHutOptimize: true, slowDown: 5 },
    });
    this.worker.start();
    this.watchLayout(performance.now(), this.positions());
  }

  /** Looks at the worker's progress every LAYOUT_CHECK_MS; stops it once the nodes have
   * nearly stopped moving, or at LAYOUT_MAX_MS. */
  private watchLayout(started: number, before: Float64Array): void {
    this.workerTimer = window.setTimeout(() => {
      const now = this.positions();
      const ran = performance.now() - started;
      const moved = this.movement(before, now); // 0: the worker has not moved a node yet
      const settled = ran >= LAYOUT_MIN_MS && moved > 0 && moved < SETTLED_SHARE;
      if (settled || ran > LAYOUT_MAX_MS) {
        this.stopLayout();
        this.layoutEnd = settled ? "settled" : "time";
      } else {
        this.watchLayout(started, now);
      }
    }, LAYOUT_CHECK_MS);
  }

  private positions(): Float64Array {
    const xy = new Float64Array(this.graph.order * 2);
    let i = 0;
    this.graph.forEachNode((_, attributes) => {
      xy[i++] = attributes.x;
      xy[i++] = attributes.y;
    });
    return xy;
  }

  /** The mean distance the nodes moved between two looks, as a share of the extent. */
  private movement(before: Float64Array, now: Float64Array): number {
    if (before.length !== now.length || now.length === 0) return Infinity;
    let moved = 0;
    let [minX, maxX, minY, maxY] = [Infinity, -Infinity, Infinity, -Infinity];
    for (let i = 0; i < now.length; i += 2) {
      moved += Math.hypot(now[i] - before[i], now[i + 1] - before[i + 1]);
      [minX, maxX] = [Math.min(minX, now[i]), Math.max(maxX, now[i])];
      [minY, maxY] = [Math.min(minY, now[i + 1]), Math.max(maxY, now[i + 1])];
    }
    const extent = Math.max(maxX - minX, maxY - minY, 1e-9);
    return moved / (now.length / 2) / extent;
  }

  private stopLayout(): void {
    window.clearTimeout(this.workerTimer);
    this.worker?.kill();
    this.worker = null;
  }

  /** Highlights ``name`` (``null``: none); moves the camera to it when it is out of sight. */
  select(name: string | null): void {
    this.focus = name && this.graph.hasNode(name) ? name : null;
    const shown = this.focus ? this.renderer.getNodeDisplayData(this.focus) : undefined;
    if (shown) {
      const at = this.renderer.framedGraphToViewport(shown);
      const { width, height } = this.renderer.getDimensions();
      if (at.x < 0 || at.y < 0 || at.x > width || at.y > height) {
        this.renderer.getCamera().animate({ x: shown.x, y: shown.y }, { duration: 300 });
      }
    }
    this.renderer.refresh();
  }

  private hover(name: string | null): void {
    this.hovered = name;
    this.renderer.refresh();
  }

  private nodeLook(node: string, data: NodeAttributes): Partial<NodeAttributes> & Record<string, unknown> {
    const lit = this.hovered; // the node under the pointer lights its neighbours
    const look: Record<string, unknown> = { ...data };
    if (node === this.focus) look.highlighted = true;
    if (lit && node !== lit && !this.graph.areNeighbors(node, lit)) {
      look.color = "#e6e8ec";
      look.label = "";
      look.zIndex = 0;
    } else {
      look.zIndex = 1;
    }
    return look;
  }

  private edgeLook(edge: string, data: EdgeAttributes): Partial<EdgeAttributes> & Record<string, unknown> {
    const look: Record<string, unknown> = { ...data };
    if (this.hovered && !this.graph.hasExtremity(edge, this.hovered)) {
      look.hidden = true;
    } else if (!this.hovered && this.graph.size > 120 && !(this.focus && this.graph.hasExtremity(edge, this.focus))) {
      look.label = ""; // thousands of labels are unreadable: shown around the chosen node only
    }
    return look;
  }

  /** The entity types on the graph, with how many nodes each has (for the legend). */
  types(): Map<string, number> {
    const counts = new Map<string, number>();
    this.graph.forEachNode((_, attributes) => counts.set(attributes.kind, (counts.get(attributes.kind) ?? 0) + 1));
    return new Map([...counts].sort((a, b) => b[1] - a[1]));
  }
}
