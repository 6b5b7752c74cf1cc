// The explorer page: search, scope and time in the bar; the graph in the middle; the
// entity panel and the ask box on the side. `window.__explorer` exposes the graph's state
// for tests (node and edge counts, pending requests).

import "./style.css";
import { get, session, type Neighbourhood } from "./api";
import { AskBox } from "./ask";
import { colourOf } from "./colours";
import { byId, el, showError } from "./dom";
import { GraphView } from "./graphview";
import { EntityPanel } from "./panel";
import { SearchBox } from "./search";
import { Timeline } from "./timeline";

const NEIGHBOURS = 200;

class Explorer {
  readonly view: GraphView;
  readonly panel = new EntityPanel((name) => void this.open(name));
  readonly search = new SearchBox((name) => void this.open(name));
  readonly timeline = new Timeline(() => void this.redraw());
  readonly asker = new AskBox();
  /** The nodes expanded, in order (drawn again when the time or scope changes). */
  expanded: string[] = [];
  selected: string | null = null;
  pending = 0;

  constructor() {
    this.view = new GraphView(byId("graph"), {
      select: (name) => void this.select(name),
      expand: (name) => void this.expand(name),
    });
    const scope = byId<HTMLSelectElement>("scope");
    scope.addEventListener("change", () => {
      session.scope = scope.value;
      void this.start();
    });
    const key = byId<HTMLInputElement>("key");
    key.value = session.key;
    byId<HTMLFormElement>("key-form").addEventListener("submit", (event) => {
      event.preventDefault();
      session.setKey(key.value);
      void this.start();
    });
  }

  private async busy<T>(work: Promise<T>): Promise<T | undefined> {
    this.pending += 1;
    try {
      return await work;
    } catch (error) {
      showError((error as Error).message);
      return undefined;
    } finally {
      this.pending -= 1;
    }
  }

  /** Loads scopes, entities and the time range; opens the most mentioned entity. */
  async start(): Promise<void> {
    await this.busy(this.scopes());
    const entities = await this.busy(this.search.load());
    await this.busy(this.timeline.load());
    this.view.clear();
    this.expanded = [];
    this.panel.clear();
    this.asker.clear();
    this.paint();
    if (entities && entities.length) await this.open(entities[0].name);
  }

  private async scopes(): Promise<void> {
    const found = await get<Record<string, unknown>>("/scopes");
    const picker = byId<HTMLSelectElement>("scope");
    const names = Object.keys(found).sort();
    picker.replaceChildren(
      el("option", { value: "" }, "(server default)"),
      ...names.map((name) => el("option", { value: name }, name)),
    );
    picker.value = names.includes(session.scope) ? session.scope : "";
  }

  /** Makes ``name`` the centre: its neighbourhood alone, and its panel. */
  async open(name: string): Promise<void> {
    this.view.clear();
    this.expanded = [];
    const centre = await this.expand(name);
    this.view.fit();
    await this.select(centre ?? name);
  }

  /** Adds ``name``'s neighbours to the graph; returns the entity's name as the server
   * found it. */
  async expand(name: string): Promise<string | undefined> {
    const found = await this.busy(
      get<Neighbourhood>("/neighbors", { name, hops: 1, limit: NEIGHBOURS, as_of: this.timeline.asOf() }),
    );
    if (!found) return undefined;
    this.view.add(found);
    if (!this.expanded.includes(found.centre)) this.expanded.push(found.centre);
    this.paint();
    return found.centre;
  }

  async select(name: string): Promise<void> {
    this.selected = name;
    this.view.select(name);
    await this.busy(this.panel.show(name, this.timeline.asOf()));
  }

  /** Draws the expanded nodes again at the chosen time. */
  async redraw(): Promise<void> {
    const again = [...this.expanded];
    this.view.clear();
    this.expanded = [];
    for (const name of again) await this.expand(name);
    if (this.selected) await this.select(this.selected);
    this.paint();
  }

  /** The legend and counts. */
  paint(): void {
    const types = this.view.types();
    byId("legend").replaceChildren(
      ...[...types].slice(0, 12).map(([type, count]) => el("span", { style: `--c:${colourOf(type)}` }, `${type} ${count}`)),
    );
    byId("counts").textContent = `${this.view.graph.order} entities · ${this.view.graph.size} links`;
  }

  /** Adds a neighbourhood given as data (tests draw large graphs with it). */
  addNeighbourhood(found: Neighbourhood): number {
    const added = this.view.add(found);
    this.view.fit();
    this.paint();
    return added;
  }
}

const explorer = new Explorer();
(window as unknown as { __explorer: unknown }).__explorer = {
  explorer,
  graph: explorer.view.graph,
  renderer: explorer.view.renderer,
  get pending() {
    const view = explorer.view;
    return explorer.pending + (view.renderer.getCamera().isAnimated() || view.moving ? 1 : 0);
  },
  get ready() {
    return started;
  },
  nodes: () => explorer.view.graph.order,
  edges: () => explorer.view.graph.size,
};
let started = false;
void explorer.start().then(() => (started = true));
