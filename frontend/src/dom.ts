// Small DOM helpers: elements by id and elements built with text (never HTML strings, so
// names and passages from the store are shown as text).

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`no element #${id}`);
  return found as T;
}

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  ...children: (Node | string | null | undefined)[]
): HTMLElementTagNameMap[K] {
  const made = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  for (const child of children) if (child !== null && child !== undefined) made.append(child);
  return made;
}

let hideTimer = 0;

/** Shows an error at the bottom of the page for a few seconds. */
export function showError(message: string): void {
  const box = byId("error");
  box.textContent = message;
  box.hidden = false;
  window.clearTimeout(hideTimer);
  hideTimer = window.setTimeout(() => (box.hidden = true), 6000);
}
