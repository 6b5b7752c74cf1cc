// A colour per entity type: fixed ones for the usual types, a stable hashed one otherwise.

const FIXED: Record<string, string> = {
  PERSON: "#e4572e",
  ORG: "#2e86ab",
  ORGANIZATION: "#2e86ab",
  GPE: "#3bb273",
  LOC: "#76b041",
  LOCATION: "#76b041",
  FAC: "#8f6593",
  NORP: "#f3a712",
  EVENT: "#d7263d",
  DATE: "#9e9e9e",
  WORK_OF_ART: "#c17817",
  PRODUCT: "#1b998b",
  CONCEPT: "#5c6bc0",
};

const PALETTE = ["#ef476f", "#118ab2", "#06d6a0", "#ffd166", "#8338ec", "#fb5607", "#3a86ff", "#ff006e"];

export function colourOf(type: string): string {
  const key = (type || "").toUpperCase();
  if (FIXED[key]) return FIXED[key];
  let hash = 0;
  for (const char of key) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return PALETTE[hash % PALETTE.length];
}
