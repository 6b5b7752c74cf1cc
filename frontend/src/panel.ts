// The entity panel: name, type, aliases and description; its relations true at the chosen
// time, grouped by type, each with its evidence sentences; and its merge history.

import { ApiError, get, type Entity, type EntityRelations, type Link, type MergeRecord } from "./api";
import { colourOf } from "./colours";
import { byId, el } from "./dom";

/** Where the merge history of an entity is read: ``GET MERGES_PATH?entity=NAME&undone=true``
 * answering its merges, undone ones included (the engine's merge listing). A server without
 * it answers 404 and the panel says the history is not available. */
export const MERGES_PATH = "/merges";

export class EntityPanel {
  private readonly box = byId("entity");
  private token = 0;
  /** Set once the server answered that it has no merge listing (not asked again). */
  private noMerges = false;

  constructor(private readonly open: (name: string) => void) {}

  clear(): void {
    this.box.replaceChildren(el("p", { class: "muted" }, "Search for an entity, or click a node."));
  }

  /** Shows ``name`` with its relations true at ``asOf`` (``null``: now). */
  async show(name: string, asOf: string | null): Promise<void> {
    const token = ++this.token;
    const [entity, relations] = await Promise.all([
      get<Entity>("/entity", { name, limit: 1 }),
      get<EntityRelations>("/relations", { name, limit: 200, as_of: asOf }),
    ]);
    if (token !== this.token) return;
    this.box.replaceChildren(
      ...this.header(entity, asOf),
      el("h3", {}, `Relations (${relations.relations.length})`),
      ...this.relations(relations.relations),
      el("h3", {}, "Merge history"),
      el("div", { id: "merges" }, el("span", { class: "muted" }, "…")),
    );
    this.box.dataset.entity = entity.name;
    this.box.scrollTop = 0;
    void this.merges(entity.name, token);
  }

  private header(entity: Entity, asOf: string | null): Node[] {
    const aliases = entity.aliases.filter((a) => a !== entity.name);
    return [
      el(
        "h2",
        { id: "entity-name" },
        entity.name,
        el("span", { class: "badge", style: `background:${colourOf(entity.type)}` }, entity.type),
      ),
      el(
        "p",
        { class: "aliases", id: "entity-aliases" },
        aliases.length ? `also: ${aliases.join(" · ")}` : el("span", { class: "muted" }, "no other names"),
      ),
      el("p", { id: "entity-description" }, entity.description),
      el(
        "p",
        { class: "muted" },
        `${entity.mentions} mention${entity.mentions === 1 ? "" : "s"}` +
          (asOf ? ` · relations as of ${asOf.slice(0, 10)}` : ""),
      ),
    ];
  }

  private relations(links: Link[]): Node[] {
    const typed = links.filter((l) => l.type !== "CO_OCCURS_WITH");
    const shown = typed.length ? typed : links;
    if (!shown.length) return [el("p", { class: "muted" }, "No relations at this time.")];
    const groups = new Map<string, Link[]>();
    for (const link of shown) {
      const key = `${link.type}${link.direction === "in" ? " (in)" : ""}`;
      groups.set(key, [...(groups.get(key) ?? []), link]);
    }
    const nodes: Node[] = [];
    for (const [type, group] of groups) {
      nodes.push(el("div", { class: "rel-type" }, type));
      for (const link of group) {
        const other = el("a", { "data-name": link.other }, link.other);
        other.addEventListener("click", () => this.open(link.other));
        const arrow = link.direction === "out" ? "→ " : "← ";
        nodes.push(
          el(
            "div",
            { class: "rel" },
            arrow,
            other,
            el("span", { class: "muted" }, ` · ${Math.round(link.confidence * 100)}%`),
            ...link.evidence.slice(0, 2).map((sentence) => el("div", { class: "evidence" }, sentence)),
          ),
        );
      }
    }
    return nodes;
  }

  private async merges(name: string, token: number): Promise<void> {
    let content: Node[];
    const missing = [el("span", { class: "muted" }, "Not available from this server.")];
    try {
      if (this.noMerges) return this.showMerges(missing, token);
      const merges = await get<MergeRecord[]>(MERGES_PATH, { entity: name, undone: true });
      content = merges.length
        ? merges.map((m) =>
            el(
              "div",
              { class: "merge" },
              `“${m.surface}” merged by ${m.rule} (${m.score.toFixed(2)})`,
              el("span", { class: "muted" }, ` · ${m.document || "by hand"} · ${m.at.slice(0, 10)}${m.undone ? " · undone" : ""}`),
            ),
          )
        : [el("span", { class: "muted" }, "No merges.")];
    } catch (error) {
      // a route the server lacks answers 404 "Not Found" (an unknown entity says its name)
      this.noMerges =
        error instanceof ApiError &&
        (error.status === 405 || (error.status === 404 && error.detail === "Not Found"));
      content = this.noMerges ? missing : [el("span", { class: "muted" }, String(error))];
    }
    this.showMerges(content, token);
  }

  private showMerges(content: Node[], token: number): void {
    const box = document.getElementById("merges");
    if (box && token === this.token) box.replaceChildren(...content);
  }
}
