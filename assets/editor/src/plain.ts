// Plain words for what the editor shows: the layout checks of `scene_geometry` (its codes are
// in pipeline/src/edit/scenes/geometry.rs), the overlay's state, and a scene's first words.
import type { Finding } from "./api";

/** A box named in a finding, as a person would say it. */
function named(id: string | undefined): string {
  if (!id) return "something";
  if (id === "caption_text" || id === "caption") return "the caption";
  if (id === "narrator") return "the narrator";
  if (id === "narrator_face") return "the narrator's face";
  return `the overlay's '${id}'`;
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The box a finding is about: a violation's first box, a warning's object. */
const subject = (f: Finding): string => ("a" in f ? f.a : f.object);
/** What the server said about a warning (a violation says nothing more than its code). */
const said = (f: Finding): string => ("message" in f ? f.message : "");

/** One layout check as a sentence: what is wrong, and what to do about it. */
export function findingSentence(f: Finding): string {
  const who = named(subject(f));
  switch (f.code) {
    case "background_subject_overlap":
      return `${cap(who)} covers the main subject of the background picture. Drag it aside or pick another background.`;
    case "caption_text_overlaps_narrator_face":
      return "The caption covers the narrator's face. Drag the caption up or down.";
    case "remotion_object_overlaps_narrator_face":
      return `${cap(who)} covers the narrator's face. Drag it away from the face.`;
    case "remotion_object_overlaps_narrator_body":
      return `${cap(who)} overlaps the narrator (not the face).`;
    case "remotion_object_in_top_dead_zone":
      return `${cap(who)} sits under the app's top bar, where phones hide it. Drag it lower.`;
    case "remotion_object_in_bottom_dead_zone":
      return `${cap(who)} sits under the app's buttons at the bottom, where phones hide it. Drag it higher.`;
    case "remotion_group_in_top_dead_zone":
      return `The overlay group '${subject(f)}' reaches under the app's top bar.`;
    case "remotion_group_in_bottom_dead_zone":
      return `The overlay group '${subject(f)}' reaches under the app's buttons at the bottom.`;
    case "remotion_object_too_small_for_mobile":
      return `${cap(who)} is too small to read on a phone. Make it bigger with its corner handle.`;
    case "missing_narrator_face":
      return "The narrator's face was not found, so nothing can check whether it is covered.";
    case "narrator_face_outside_narrator":
      return "The narrator's face reaches outside the narrator's frame. Make the narrator bigger.";
    default:
      return said(f) || cap(f.code.replace(/_/g, " ")) + ".";
  }
}

/** The overlay's state (`remotion_spec_state`: ready, missing, disabled) in words. */
export function overlaySentence(state: string | undefined): string {
  switch (state) {
    case "ready":
      return "Overlay: on.";
    case "disabled":
      return "Overlay: turned off. Undo (Ctrl+Z) turns it back on as it was.";
    case "missing":
    case undefined:
    case "":
      return "No overlay: this scene has none yet. Upload one below (Uploads, Overlay).";
    default:
      return `Overlay: ${state}.`;
  }
}

/** The first `n` words of a text, with an ellipsis when there are more. */
export function firstWords(text: string, n = 6): string {
  const all = text.trim().split(/\s+/).filter(Boolean);
  return all.slice(0, n).join(" ") + (all.length > n ? "…" : "");
}
