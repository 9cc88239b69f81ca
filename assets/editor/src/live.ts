// The editor's live connection: it registers this tab as a live instance of its video, answers
// the server's probes, runs scene_inspector's live actions through the controller the open
// editor binds, and reports its state whenever that changes. It reconnects when the socket
// drops. There is no way to run arbitrary script through it.
import { url } from "./api";

export interface PreviewState { scene: string | null; scene_index: number; playing: boolean; time: number }

export interface Controller {
  state(): PreviewState;
  activate(voice_file: string): Promise<void>;
  play(): Promise<void>;
  pause(): void;
  seek(t: number): Promise<void>;
  reload(): Promise<void>;
  snapshot(selector: string | null): Record<string, unknown>;
  boxes(selector: string | null): Record<string, unknown>;
}

let controller: Controller | null = null;
let socket: WebSocket | null = null;
let mode = "editor";

export function bind(c: Controller | null, m: string) {
  controller = c;
  mode = m;
  report();
}

export function report() {
  if (!socket || socket.readyState !== WebSocket.OPEN) return;
  const s = controller?.state();
  socket.send(
    JSON.stringify({
      type: "state",
      scene: s?.scene ?? null,
      playing: s?.playing ?? false,
      time: s?.time ?? 0,
      visible: document.visibilityState === "visible",
      mounted: !!document.querySelector('[data-stage="preview"]'),
      mode,
    }),
  );
}

/** A command of the server, narrowed from the socket's JSON. */
interface Command {
  action: string;
  voice_file: string | null;
  activate: boolean;
  selector: string | null;
  seek_seconds: number;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

function commandOf(m: Record<string, unknown>): Command {
  return {
    action: str(m.action) ?? "",
    voice_file: str(m.voice_file),
    activate: m.activate === true,
    selector: str(m.selector),
    seek_seconds: typeof m.seek_seconds === "number" ? m.seek_seconds : Number(m.seek_seconds ?? 0),
  };
}

async function run(msg: Command): Promise<Record<string, unknown>> {
  const c = controller;
  if (!c) throw new Error("No scene preview is open in this tab.");
  const wanted = msg.voice_file;
  if (wanted && wanted !== c.state().scene) {
    if (!msg.activate && msg.action !== "activate_scene") {
      throw new Error(`This tab shows scene ${c.state().scene}; send activate: true to switch to ${wanted}.`);
    }
    await c.activate(wanted);
  }
  const state = () => {
    const s = c.state();
    return { playing: s.playing, paused: !s.playing, scene: s.scene, scene_index: s.scene_index, time: s.time };
  };
  switch (msg.action) {
    case "get_preview_state":
      return state();
    case "get_scene_dom_snapshot":
      return c.snapshot(msg.selector);
    case "get_computed_boxes":
      return c.boxes(msg.selector);
    case "activate_scene":
      return { activated: true, ...state() };
    case "reload_preview":
      await c.reload();
      return { reloaded: true, ...state() };
    case "pause_preview":
      c.pause();
      return state();
    case "play_preview":
      await c.play();
      return state();
    case "seek_preview":
      await c.seek(msg.seek_seconds);
      return state();
    default:
      throw new Error(`This editor does not know the action ${msg.action}.`);
  }
}

export function connect() {
  const target = new URL(url("/live"), location.href);
  target.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(target);
  socket = ws;
  ws.onopen = () => report();
  ws.onmessage = async (ev) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(String(ev.data));
    } catch {
      return;
    }
    if (!isRecord(parsed)) return;
    const msg = parsed;
    const answer = (body: Record<string, unknown>) =>
      ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify({ type: "reply", request_id: msg.request_id, ...body }));
    if (msg.type === "probe") {
      answer({
        ok: true,
        result: {
          visible: document.visibilityState === "visible",
          mounted: !!document.querySelector('[data-stage="preview"]'),
        },
      });
    } else if (msg.type === "command") {
      try {
        answer({ ok: true, result: await run(commandOf(msg)) });
      } catch (e) {
        answer({ ok: false, error: e instanceof Error ? e.message : String(e) });
      }
    }
  };
  ws.onclose = () => {
    if (socket === ws) {
      socket = null;
      setTimeout(connect, 1000);
    }
  };
  document.addEventListener("visibilitychange", report);
}
