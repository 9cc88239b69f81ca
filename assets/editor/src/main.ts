// Entry: reads the review link (topic, token, readonly, view), loads the video and mounts the
// scene editor, the script view or the read-only player over the server's plain scene list.
import { html } from "htm/preact";
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, readonly, words, type EditorView, type PlayerView } from "./api";
import { Editor } from "./editor";
import { Player } from "./player";
import { Script } from "./script";
import * as live from "./live";
import "./style.css";

/** While the scenes are being built, `open` runs again every two seconds. */
function useRefreshWhileBuilding(view: EditorView | PlayerView | null, open: () => unknown) {
  useEffect(() => {
    if (!view || view.scenes.length > 0 || view.status.status !== "processing") return;
    const t = setTimeout(open, 2000);
    return () => clearTimeout(t);
  }, [view]);
}

/** The read-only player: it loads the player's view, and reloads it while the scenes build. */
function PlayerApp() {
  const [view, setView] = useState<PlayerView | null>(null);
  const [error, setError] = useState("");
  const open = () =>
    api
      .playerData()
      .then(setView)
      .catch((e) => setError(words(e)));
  useEffect(() => {
    open();
  }, []);
  useRefreshWhileBuilding(view, open);
  if (error) return html`<p class="error" role="alert">${error}</p>`;
  if (!view) return html`<p class="loading">Loading…</p>`;
  return html`<${Player} view=${view} />`;
}

function App() {
  const [view, setView] = useState<EditorView | null>(null);
  const [error, setError] = useState("");

  const open = async () => {
    try {
      const v = await api.data();
      const ready = v.mode === "scenes" && v.scenes.length > 0 && v.status.stage !== null;
      // The editor works inside an edit session; reopening rejoins the open one.
      if (ready) await api.session("start").catch(() => undefined);
      setView(await api.data());
    } catch (e) {
      setError(words(e));
    }
  };
  useEffect(() => {
    open();
    live.connect();
  }, []);
  useRefreshWhileBuilding(view, open);

  if (error) return html`<p class="error" role="alert">${error}</p>`;
  if (!view) return html`<p class="loading">Loading…</p>`;
  if (view.mode === "script") return html`<${Script} view=${view} onScenes=${open} />`;
  if (view.scenes.length === 0)
    return html`<p class="empty">The scenes are being built (${Math.round(view.status.progress * 100)}%). This page updates by itself.</p>`;
  return html`<${Editor} initial=${view} />`;
}

const root = document.getElementById("app");
if (root) {
  root.textContent = "";
  // The player's link opens no live connection (its token does not open the socket).
  render(readonly ? html`<${PlayerApp} />` : html`<${App} />`, root);
}
