/**
 * A file's Content-Type from its name: what chat platforms need to show an image
 * inline or a text file as text. Unknown names are plain bytes.
 */
const TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  svg: "image/svg+xml",
  pdf: "application/pdf",
  json: "application/json",
  zip: "application/zip",
  gz: "application/gzip",
  tar: "application/x-tar",
  csv: "text/csv; charset=utf-8",
  tsv: "text/tab-separated-values; charset=utf-8",
  txt: "text/plain; charset=utf-8",
  log: "text/plain; charset=utf-8",
  md: "text/markdown; charset=utf-8",
  html: "text/html; charset=utf-8",
  xml: "application/xml",
  yaml: "text/yaml; charset=utf-8",
  yml: "text/yaml; charset=utf-8",
  py: "text/x-python; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  ts: "text/plain; charset=utf-8",
  sh: "text/x-shellscript; charset=utf-8",
};

export const DEFAULT_CONTENT_TYPE = "application/octet-stream";

export function contentTypeOf(name: string): string {
  const base = name.slice(name.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  if (dot <= 0) return DEFAULT_CONTENT_TYPE;
  return TYPES[base.slice(dot + 1).toLowerCase()] ?? DEFAULT_CONTENT_TYPE;
}

/** True for the types chat platforms show inline as a picture. */
export function isImageType(type: string): boolean {
  return /^image\/(png|jpeg|gif|webp)$/.test(type);
}
