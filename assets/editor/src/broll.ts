// The background swap: search_broll results for a keyword (the selected scene's own to start
// with; the editor mounts one of these per scene, so a scene switch starts afresh). Each result
// says what it is; choosing one previews it (the photo larger, the clip playing muted), and
// "Use this" sends its url as the scene's mediaUrl (modify_scene branch A).
import { html } from "htm/preact";
import { useState } from "preact/hooks";
import { api, words, type BrollResult, type SearchKind } from "./api";

/** A result's type and length in words: "Video · 4.0 s", "Image". */
export function kindWords(r: BrollResult): string {
  if (r.type === "image") return "Image";
  return r.duration && r.duration > 0 ? `Video · ${r.duration.toFixed(1)} s` : "Video";
}

export function Broll(props: { keyword: string; onPick: (url: string) => unknown }) {
  const [keyword, setKeyword] = useState(props.keyword);
  const [kind, setKind] = useState<SearchKind>("video");
  const [results, setResults] = useState<BrollResult[] | null>(null);
  const [chosen, setChosen] = useState<BrollResult | null>(null);
  const [error, setError] = useState("");
  const search = async (e: Event) => {
    e.preventDefault();
    setError("");
    setChosen(null);
    try {
      setResults((await api.broll(keyword.trim() || "grid", kind)).results);
    } catch (err) {
      setError(words(err));
    }
  };
  const use = (r: BrollResult) => {
    setChosen(null);
    props.onPick(r.url);
  };
  return html`<section class="broll" aria-label="Background">
    <h2>Background</h2>
    <form class="row" onSubmit=${search}>
      <input class="broll-keyword" aria-label="Keyword" value=${keyword} onInput=${(e: Event) => e.target instanceof HTMLInputElement && setKeyword(e.target.value)} />
      <select class="broll-kind" aria-label="Kind" value=${kind} onChange=${(e: Event) => e.target instanceof HTMLSelectElement && setKind(e.target.value === "image" ? "image" : "video")}>
        <option value="video">Clips</option>
        <option value="image">Photos</option>
      </select>
      <button class="broll-search" type="submit">Search</button>
    </form>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    ${results && results.length === 0 ? html`<p>Nothing found; try another word.</p>` : null}
    ${chosen
      ? html`<figure class="broll-preview" aria-label="Background preview">
          ${chosen.type === "video"
            ? html`<video src=${chosen.url} poster=${chosen.thumbnail_url} autoplay muted loop playsinline></video>`
            : html`<img src=${chosen.url} alt=${chosen.title} />`}
          <figcaption>
            <strong>${chosen.title || "Untitled"}</strong>
            <span>${kindWords(chosen)}${chosen.source ? ` · ${chosen.source.replace(/_/g, " ")}` : ""}</span>
            <span class="row">
              <button class="broll-use" onClick=${() => use(chosen)}>Use this</button>
              <button class="broll-cancel" onClick=${() => setChosen(null)}>Cancel</button>
            </span>
          </figcaption>
        </figure>`
      : null}
    <div class="broll-results" role="group" aria-label="Results">
      ${(results ?? []).map(
        (r) => html`<button
          class=${"broll-result" + (chosen?.url === r.url ? " chosen" : "")}
          title=${`Preview ${r.title}`}
          data-url=${r.url}
          data-type=${r.type}
          aria-pressed=${chosen?.url === r.url}
          onClick=${() => setChosen(r)}
        >
          <img alt="" src=${r.thumbnail_url} loading="lazy" />
          <span class="broll-title">${r.title || "Untitled"}</span>
          <span class="broll-kind-words">${kindWords(r)}</span>
        </button>`,
      )}
    </div>
  </section>`;
}
