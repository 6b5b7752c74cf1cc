// The HTTP API as the explorer uses it: every request carries the chosen scope and, when
// one is set, the API key; errors are the server's problem details.

export interface Entity {
  id: string;
  name: string;
  type: string;
  mentions: number;
  aliases: string[];
  description: string;
}

export interface Neighbour {
  name: string;
  type: string;
  id: string;
  distance: number;
}

export interface Edge {
  source: string;
  type: string;
  target: string;
  weight: number;
  confidence: number;
  fact: string;
}

export interface Neighbourhood {
  centre: string;
  hops: number;
  entities: Neighbour[];
  relations: Edge[];
}

export interface Link {
  direction: "out" | "in";
  type: string;
  other: string;
  other_type: string | null;
  confidence: number;
  weight: number;
  fact: string;
  evidence: string[];
}

export interface EntityRelations {
  entity: string;
  type: string;
  id: string;
  relations: Link[];
}

export interface SearchHit {
  kind: string;
  id: string;
  title: string;
  score: number;
  extra: Record<string, unknown>;
  relevance: number;
  relevant: boolean;
}

export interface SearchResults {
  relevant: boolean;
  relevance: number;
  threshold: number;
  hits: SearchHit[];
}

export interface Citation {
  index: number;
  document_id: string;
  document_title: string;
  chunk_id: string;
  seq: number;
  start: number;
  end: number;
  quote: string;
  section: string;
}

export interface Answer {
  question: string;
  answer: string;
  llm: boolean;
  citations: Citation[];
  found?: boolean;
}

/** One merge of a name into an entity, as the engine's merge listing describes it. */
export interface MergeRecord {
  id: string;
  surface: string;
  entity: string;
  rule: string;
  score: number;
  document: string;
  at: string;
  principal?: string;
  undone?: boolean;
}

export interface Memory {
  id: string;
  text: string;
  at: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(detail);
  }
}

const KEY_STORAGE = "loregraph.key";

/** What every request shares: the scope chosen in the picker and the API key. */
export const session = {
  scope: "" as string,
  key: (typeof localStorage !== "undefined" && localStorage.getItem(KEY_STORAGE)) || "",
  setKey(key: string): void {
    this.key = key.trim();
    localStorage.setItem(KEY_STORAGE, this.key);
  },
};

type Params = Record<string, string | number | boolean | undefined | null>;

export function url(path: string, params: Params = {}): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") query.set(name, String(value));
  }
  if (session.scope) query.set("scope", session.scope);
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
  return session.key ? { ...extra, Authorization: `Bearer ${session.key}` } : extra;
}

async function failure(response: Response): Promise<ApiError> {
  let detail = response.statusText;
  try {
    const body = await response.json();
    detail = body.detail || body.title || detail;
  } catch {
    // not a problem detail: keep the status text
  }
  return new ApiError(response.status, detail);
}

export async function get<T>(path: string, params: Params = {}): Promise<T> {
  const response = await fetch(url(path, params), { headers: headers() });
  if (!response.ok) throw await failure(response);
  return (await response.json()) as T;
}

/** A server-sent event: its name and parsed JSON data. */
export interface StreamEvent {
  event: string;
  data: any;
}

/** Parses a text/event-stream body into events (`event:` and `data:` lines). */
export async function* events(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    buffer += decoder.decode(value ?? new Uint8Array(), { stream: !done });
    buffer = buffer.replace(/\r\n?/g, "\n");
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let name = "message";
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") name = value;
        else if (field === "data") data.push(value);
      }
      if (data.length) yield { event: name, data: JSON.parse(data.join("\n")) };
    }
    if (done) return;
  }
}

/** POST /ask: the answer's events as the server streams them. */
export async function* ask(question: string, signal: AbortSignal): AsyncGenerator<StreamEvent> {
  const response = await fetch(url("/ask"), {
    method: "POST",
    headers: headers({ "Content-Type": "application/json", Accept: "text/event-stream" }),
    body: JSON.stringify({ question }),
    signal,
  });
  if (!response.ok || !response.body) throw await failure(response);
  yield* events(response.body);
}
