// The search box: suggestions from the scope's entities (names and aliases, prefix matches
// first, then substring), completed by the server's entity search for other words.

import { get, type Entity, type SearchResults } from "./api";
import { colourOf } from "./colours";
import { byId, el } from "./dom";

const SHOWN = 8;

interface Suggestion {
  name: string;
  type: string;
  alias?: string;
}

export class SearchBox {
  private entities: Entity[] = [];
  private shown: Suggestion[] = [];
  private active = -1;
  private timer = 0;
  private readonly input = byId<HTMLInputElement>("search");
  private readonly list = byId<HTMLUListElement>("suggestions");

  constructor(private readonly choose: (name: string) => void) {
    this.input.addEventListener("input", () => {
      window.clearTimeout(this.timer);
      this.timer = window.setTimeout(() => void this.suggest(), 120);
    });
    this.input.addEventListener("keydown", (event) => this.key(event));
    this.input.addEventListener("blur", () => window.setTimeout(() => (this.list.hidden = true), 150));
  }

  /** Loads the scope's entities (most mentioned first) for the suggestions. */
  async load(): Promise<Entity[]> {
    this.entities = await get<Entity[]>("/entities", { order: "mentions", limit: 10000 });
    return this.entities;
  }

  private local(query: string): Suggestion[] {
    const q = query.toLowerCase();
    const prefix: Suggestion[] = [];
    const inside: Suggestion[] = [];
    for (const entity of this.entities) {
      const name = entity.name.toLowerCase();
      if (name.startsWith(q) || name.split(/\s+/).some((word) => word.startsWith(q))) {
        prefix.push({ name: entity.name, type: entity.type });
      } else if (name.includes(q)) {
        inside.push({ name: entity.name, type: entity.type });
      } else {
        const alias = entity.aliases.find((a) => a.toLowerCase().includes(q));
        if (alias) inside.push({ name: entity.name, type: entity.type, alias });
      }
      if (prefix.length >= SHOWN) break;
    }
    return [...prefix, ...inside].slice(0, SHOWN);
  }

  private async suggest(): Promise<void> {
    const query = this.input.value.trim();
    if (!query) {
      this.render([]);
      return;
    }
    let found = this.local(query);
    this.render(found);
    if (found.length < SHOWN && query.length >= 3) {
      try {
        const results = await get<SearchResults>("/search", { q: query, kind: "entities", limit: SHOWN });
        if (this.input.value.trim() !== query) return;
        const seen = new Set(found.map((s) => s.name));
        const types = new Map(this.entities.map((e) => [e.name, e.type]));
        for (const hit of results.hits.filter((h) => h.relevant)) {
          if (!seen.has(hit.title)) found = [...found, { name: hit.title, type: types.get(hit.title) ?? "" }];
        }
        this.render(found.slice(0, SHOWN));
      } catch {
        // suggestions from the names already shown are enough
      }
    }
  }

  private render(items: Suggestion[]): void {
    this.shown = items;
    this.active = items.length ? 0 : -1;
    this.list.replaceChildren(
      ...items.map((item, i) => {
        const row = el(
          "li",
          { role: "option", "data-name": item.name },
          el("span", { class: "name" }, item.name),
          item.alias ? el("span", { class: "alias" }, `(${item.alias})`) : null,
          el("span", { class: "type", style: `color:${colourOf(item.type)}` }, item.type),
        );
        row.addEventListener("mousedown", (event) => {
          event.preventDefault();
          this.pick(i);
        });
        return row;
      }),
    );
    this.highlight();
    this.list.hidden = items.length === 0;
  }

  private highlight(): void {
    [...this.list.children].forEach((row, i) => row.classList.toggle("active", i === this.active));
  }

  private key(event: KeyboardEvent): void {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      if (!this.shown.length) return;
      const step = event.key === "ArrowDown" ? 1 : -1;
      this.active = (this.active + step + this.shown.length) % this.shown.length;
      this.highlight();
    } else if (event.key === "Enter") {
      event.preventDefault();
      if (this.active >= 0) this.pick(this.active);
      else if (this.input.value.trim()) this.choose(this.input.value.trim());
    } else if (event.key === "Escape") {
      this.list.hidden = true;
    }
  }

  private pick(index: number): void {
    const item = this.shown[index];
    this.list.hidden = true;
    this.input.value = item.name;
    this.choose(item.name);
  }
}
