// The background swap: search_broll results for a keyword (the scene's own by default); picking
// one sends its url as the scene's mediaUrl (modify_scene branch A).
import { html } from "htm/preact";
import { useState } from "preact/hooks";
import { api, words, type BrollResult } from "./api";

export function Broll(props: { keyword: string; onPick: (url: string) => void }) {
  const [keyword, setKeyword] = useState(props.keyword);
  const [kind, setKind] = useState<"video" | "image">("video");
  const [results, setResults] = useState<BrollResult[] | null>(null);
  const [error, setError] = useState("");
  const search = async (e: Event) => {
    e.preventDefault();
    setError("");
    try {
      setResults((await api.broll(keyword.trim() || "grid", kind)).results);
    } catch (err) {
      setError(words(err));
    }
  };
  return html`<section class="broll">
    <h2>Background</h2>
    <form class="row" onSubmit=${search}>
      <input class="broll-keyword" aria-label="Keyword" value=${keyword} onInput=${(e: Event) => setKeyword((e.target as HTMLInputElement).value)} />
      <select class="broll-kind" aria-label="Kind" value=${kind} onChange=${(e: Event) => setKind((e.target as HTMLSelectElement).value as "video" | "image")}>
        <option value="video">Clips</option>
        <option value="image">Photos</option>
      </select>
      <button class="broll-search" type="submit">Search</button>
    </form>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    ${results && results.length === 0 ? html`<p>Nothing found; try another word.</p>` : null}
    <div class="broll-results">
      ${(results ?? []).map(
        (r) => html`<button class="broll-result" title=${r.title} data-url=${r.url} onClick=${() => props.onPick(r.url)}>
          <img alt=${r.title} src=${r.thumbnail_url} loading="lazy" />
        </button>`,
      )}
    </div>
  </section>`;
}
