/**
 * `raw` as a URL when it is http or https with no user name or password in
 * it; null for anything else (not a URL, another scheme, credentials). What a
 * shared file's URL must be wherever it is kept or fetched: a token goes with
 * the request, never inside the URL. Which hosts it may be on is each
 * caller's to say (a bot checks its platform's file hosts on every hop).
 */
export function plainHttpUrl(raw: string | URL): URL | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  return (url.protocol === "https:" || url.protocol === "http:") && url.username === "" && url.password === "" ? url : null;
}
