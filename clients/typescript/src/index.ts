// The Reelsmith /v1 client: openapi-fetch over the generated `paths`, with the API key sent as
// a bearer token. Every request and reply is typed by the served OpenAPI document.
import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./schema.js";

export type { components, paths };
/** A named schema of the document: `Schema<"StatusObject">`. */
export type Schema<Name extends keyof components["schemas"]> = components["schemas"][Name];
export type Reelsmith = Client<paths>;

/** A client of the daemon at `baseUrl` (for example `http://127.0.0.1:8080`) with API key `key`. */
export function reelsmith(baseUrl: string, key: string): Reelsmith {
  return createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${key}` } });
}
