// The editor's keys (outside text fields, sliders and videos): Space plays and pauses the whole
// video; ←/→ (and ↑/↓) move between scenes, Shift+←/→ steps one frame; with a box selected the
// arrows nudge it (Shift: 10 px) and Escape lets it go; Ctrl+Z undoes, Ctrl+Shift+Z (or Ctrl+Y)
// redoes, Ctrl+S saves. Buttons and checkboxes keep Space and Enter.
import type { Commands } from "./commands";
import { selectedIndex, type Store } from "./store";

/** An arrow key's direction (x, y). */
const ARROWS: Record<string, [number, number] | undefined> = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
/** Inputs that are pressed, not typed in: the page's keys work on them (Space stays theirs). */
const PRESSED_INPUTS = new Set(["checkbox", "radio", "button", "submit", "reset", "file", "color"]);

/** A text field, a slider, a list or a video with controls: it keeps its own keys. */
export function keepsItsKeys(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement || target instanceof HTMLVideoElement) return true;
  return target instanceof HTMLInputElement && !PRESSED_INPUTS.has(target.type);
}

/** A button or a checkbox: Space and Enter press it. */
function isPressable(target: EventTarget | null): boolean {
  return target instanceof HTMLButtonElement || (target instanceof HTMLInputElement && PRESSED_INPUTS.has(target.type));
}

/** Ctrl (or ⌘) with Z, Y or S. True when the key was the editor's. */
function withCtrl(e: KeyboardEvent, c: Commands): boolean {
  const key = e.key.toLowerCase();
  if (key === "z" || key === "y") {
    e.preventDefault();
    c.step(key === "y" || e.shiftKey ? "redo" : "undo");
    return true;
  }
  if (key === "s") {
    e.preventDefault();
    c.save();
    return true;
  }
  return false;
}

/** The arrow keys: nudge the picked box, step a frame, or move to the next scene. */
function arrow(e: KeyboardEvent, [x, y]: [number, number], store: Store, c: Commands) {
  const s = store.get();
  e.preventDefault();
  if (s.picked && !s.playing) {
    const by = e.shiftKey ? 10 : 1;
    c.nudgeBy(x * by, y * by);
  } else if (e.shiftKey && x !== 0) {
    c.stepFrame(x > 0 ? 1 : -1);
  } else {
    c.select(selectedIndex(s) + (x || y));
  }
}

export function keyHandlers(store: Store, c: Commands) {
  const down = (e: KeyboardEvent) => {
    if (keepsItsKeys(e.target)) return;
    if ((e.ctrlKey || e.metaKey) && withCtrl(e, c)) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const dir = ARROWS[e.key];
    if (dir) arrow(e, dir, store, c);
    else if (e.key === "Escape" && store.get().picked) c.pick(null);
    else if (e.key === " " && !isPressable(e.target)) {
      e.preventDefault();
      c.togglePlayAll();
    }
  };
  // Releasing an arrow key rests a nudge: it is sent after the idle time.
  const up = (e: KeyboardEvent) => {
    if (e.key.startsWith("Arrow") && c.waiting()) c.rest();
  };
  return { down, up };
}
