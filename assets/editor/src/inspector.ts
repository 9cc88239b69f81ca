// The live inspector's controller for the open editor (`scene_inspector` through src/live.ts):
// it reads the store, so it sees a change as soon as it is dispatched, and drives the editor
// through the same commands as its buttons.
import type { Commands } from "./commands";
import type { Controller } from "./live";
import { measure } from "./stage";
import { selectedIndex, selectedScene, type Store } from "./store";

export function inspector(store: Store, c: Commands, video: { current: HTMLVideoElement | null }): Controller {
  return {
    state: () => {
      const s = store.get();
      return {
        scene: selectedScene(s)?.voice_file ?? null,
        scene_index: selectedIndex(s),
        playing: s.playing !== null,
        time: s.playing ? (video.current?.currentTime ?? 0) : (s.time ?? 0),
      };
    },
    activate: async (vf) => {
      const i = store.get().view.scenes.findIndex((s) => s.voice_file === vf);
      if (i < 0) throw new Error(`This video has no scene ${vf}.`);
      c.select(i);
      await new Promise((r) => setTimeout(r, 50));
    },
    play: c.play,
    pause: c.pause,
    seek: async (t) => c.seek(t),
    reload: async () => {
      await c.reload();
    },
    snapshot: (selector) => {
      const s = store.get();
      const scene = selectedScene(s);
      return {
        scene_uid: scene?.voice_file,
        scene_index: selectedIndex(s),
        text: scene?.text,
        roll: scene?.type,
        duration: scene?.duration,
        stage: { width: 280, height: 498 },
        picture: document.querySelector('[data-stage="preview"] [data-picture]')?.tagName.toLowerCase(),
        elements: measure(selector).map((b) => ({ ...b, text: document.querySelector<HTMLElement>(b.selector)?.title ?? "" })),
        zones: measure("[data-zone]"),
      };
    },
    boxes: (selector) => ({ scene_uid: selectedScene(store.get())?.voice_file, boxes: measure(selector) }),
  };
}
