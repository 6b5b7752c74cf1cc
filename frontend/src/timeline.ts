// The time slider: from a year back (or the oldest memory, if older) to now; the right end
// is "now" (no as_of), any other position asks for the graph as it was then.

import { get, type Memory } from "./api";
import { byId } from "./dom";

const DAY = 86_400_000;
const STEPS = 1000;

export class Timeline {
  private readonly slider = byId<HTMLInputElement>("asof");
  private readonly label = byId<HTMLOutputElement>("asof-label");
  private start = Date.now() - 365 * DAY;
  private end = Date.now();
  private timer = 0;

  constructor(private readonly changed: () => void) {
    this.slider.addEventListener("input", () => {
      this.paint();
      window.clearTimeout(this.timer);
      this.timer = window.setTimeout(() => this.changed(), 200);
    });
    byId("asof-now").addEventListener("click", () => {
      this.slider.value = String(STEPS);
      this.paint();
      this.changed();
    });
  }

  /** Sets the range from the scope's memories (their times). */
  async load(): Promise<void> {
    this.end = Date.now();
    this.start = this.end - 365 * DAY;
    try {
      const memories = await get<Memory[]>("/memories", { limit: 10000 });
      const oldest = Math.min(...memories.map((m) => Date.parse(m.at)).filter((t) => !Number.isNaN(t)));
      if (Number.isFinite(oldest) && oldest - DAY < this.start) this.start = oldest - DAY;
    } catch {
      // a year back is the range
    }
    this.paint();
  }

  /** The chosen time as ISO 8601, or ``null`` for now. */
  asOf(): string | null {
    const step = Number(this.slider.value);
    if (step >= STEPS) return null;
    return new Date(this.start + ((this.end - this.start) * step) / STEPS).toISOString();
  }

  private paint(): void {
    const at = this.asOf();
    this.label.value = at ? at.slice(0, 10) : "now";
    this.label.textContent = this.label.value;
  }
}
