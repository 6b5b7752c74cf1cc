// The ask box: the answer streamed from POST /ask (its status, its text as it is written,
// then the whole answer with its citations); a citation opens its passage.

import { ask, get, type Answer, type Citation } from "./api";
import { byId, el, showError } from "./dom";

/** A passage by its chunk id, when the server has the endpoint. */
interface PassageOut {
  id: string;
  text: string;
  start: number;
  end: number;
}

export class AskBox {
  private readonly input = byId<HTMLTextAreaElement>("ask-input");
  private readonly status = byId("ask-status");
  private readonly answer = byId("answer");
  private readonly list = byId<HTMLOListElement>("citations");
  private running: AbortController | null = null;
  private citations: Citation[] = [];
  /** Events received for the last question, in order (for tests and debugging). */
  readonly received: string[] = [];

  constructor() {
    byId<HTMLFormElement>("ask-form").addEventListener("submit", (event) => {
      event.preventDefault();
      void this.ask(this.input.value.trim());
    });
    this.input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey) {
        event.preventDefault();
        void this.ask(this.input.value.trim());
      }
    });
  }

  /** Forgets the last answer (another scope or key). */
  clear(): void {
    this.running?.abort();
    this.citations = [];
    this.received.length = 0;
    this.status.textContent = "";
    this.answer.replaceChildren();
    this.list.replaceChildren();
  }

  async ask(question: string): Promise<void> {
    if (!question) return;
    this.running?.abort();
    const running = (this.running = new AbortController());
    this.received.length = 0;
    this.citations = [];
    this.answer.replaceChildren();
    this.list.replaceChildren();
    this.status.textContent = "asking…";
    let text = "";
    try {
      for await (const { event, data } of ask(question, running.signal)) {
        this.received.push(event);
        if (event === "status") this.status.textContent = `${data.stage}…`;
        else if (event === "sources") this.status.textContent = `${data.passages.length} passages found; answering…`;
        else if (event === "delta") {
          text += data.text;
          this.answer.textContent = text;
        } else if (event === "answer") this.finish(data as Answer);
        else if (event === "error") throw new Error(data.detail || data.title);
      }
    } catch (error) {
      if (running.signal.aborted) return;
      this.status.textContent = "";
      showError(`ask: ${(error as Error).message}`);
    } finally {
      if (this.running === running) this.running = null;
    }
  }

  private finish(answer: Answer): void {
    this.citations = answer.citations;
    this.status.textContent = answer.found === false ? "nothing found" : answer.llm ? "written by the model" : "quoted from the passages";
    this.answer.replaceChildren(...this.linked(answer.answer));
    this.list.replaceChildren(
      ...answer.citations.map((c) => {
        const item = el(
          "li",
          { value: String(c.index), "data-index": String(c.index) },
          c.document_title + (c.section ? ` › ${c.section}` : ""),
        );
        item.addEventListener("click", () => void this.open(c.index));
        return item;
      }),
    );
  }

  /** The answer's text with each [n] (or [n, m]) as links to citation n. */
  private linked(text: string): Node[] {
    const nodes: Node[] = [];
    let last = 0;
    for (const match of text.matchAll(/\[(\d+(?:,\s*\d+)*)\]/g)) {
      nodes.push(document.createTextNode(text.slice(last, match.index)));
      nodes.push(document.createTextNode("["));
      match[1].split(/,\s*/).forEach((number, i) => {
        if (i) nodes.push(document.createTextNode(", "));
        const known = this.citations.some((c) => c.index === Number(number));
        if (!known) {
          nodes.push(document.createTextNode(number));
          return;
        }
        const link = el("a", { class: "cite", "data-index": number }, number);
        link.addEventListener("click", () => void this.open(Number(number)));
        nodes.push(link);
      });
      nodes.push(document.createTextNode("]"));
      last = (match.index ?? 0) + match[0].length;
    }
    nodes.push(document.createTextNode(text.slice(last)));
    return nodes;
  }

  /** Opens citation ``index``'s passage: the whole chunk with the quote marked when the
   * server reads passages by id, else the quote itself. */
  async open(index: number): Promise<void> {
    const citation = this.citations.find((c) => c.index === index);
    if (!citation) return;
    byId("passage-title").textContent = `[${citation.index}] ${citation.document_title}`;
    byId("passage-section").textContent = citation.section;
    byId("passage-where").textContent = `characters ${citation.start}–${citation.end} of the document`;
    const box = byId("passage-text");
    box.replaceChildren(citation.quote);
    const dialog = byId<HTMLDialogElement>("passage");
    if (!dialog.open) dialog.showModal();
    try {
      const passage = await get<PassageOut>(`/passages/${encodeURIComponent(citation.chunk_id)}`);
      const from = Math.max(0, citation.start - passage.start);
      const to = Math.min(passage.text.length, citation.end - passage.start);
      if (to <= from) return;
      box.replaceChildren(passage.text.slice(0, from), el("mark", {}, passage.text.slice(from, to)), passage.text.slice(to));
      box.querySelector("mark")?.scrollIntoView({ block: "center" });
    } catch {
      // the quote is shown already
    }
  }
}
