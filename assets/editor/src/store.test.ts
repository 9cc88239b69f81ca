// The editor's store: the undo stack as the server gives it, drafts, the selection following
// the playhead, and the scenes numbered again after a reorder, a delete or an add.
import { describe, expect, it, vi } from "vitest";
import { arranged, restored, scene, version, versions, view } from "./fixtures";
import { lengthSentence, parseMessage } from "./messages";
import * as s from "./store";

const start = (staged = 0) => s.initialState(view(staged));
const run = (state: s.EditorState, ...actions: s.Action[]) => actions.reduce(s.reduce, state);
const ids = (state: s.EditorState) => state.view.scenes.map((c) => [c.voice_file, c.id, c.order_id, c.scene_index]);

describe("undo and redo mirror the server's versions", () => {
  const built = version(1, "built");
  const edited = version(2, "segment_text");

  it("from a versions reply", () => {
    const before = start();
    expect([s.canUndo(before), s.canRedo(before)]).toEqual([false, false]);
    const after = run(before, { type: "versions", versions: versions(edited, [built], []) });
    expect([s.canUndo(after), s.canRedo(after)]).toEqual([true, false]);
    expect(s.undoLabel(after)).toBe("the text change");
  });

  it("from a version_restored message", () => {
    const undone = versions(version(3, "undo"), [], [edited]);
    const message = { type: "version_restored", topic_id: "wcTest", voice_file: "", at: "2025-01-01T00:00:00Z", ...restored("undo", undone) };
    const m = parseMessage("version_restored", JSON.stringify(message));
    expect(m.kind).toBe("restored");
    if (m.kind !== "restored") return;
    const after = run(start(), { type: "versions", versions: versions(edited, [built], []) }, { type: "versions", versions: m.versions });
    expect([s.canUndo(after), s.canRedo(after)]).toEqual([false, true]);
    expect(s.redoLabel(after)).toBe("the text change");
  });

  it("a message that is not a Restored changes nothing", () => {
    expect(parseMessage("version_restored", JSON.stringify({ type: "version_restored", versions: { undo: "x" } })).kind).toBe("other");
    expect(parseMessage("version_restored", "not json").kind).toBe("other");
  });
});

describe("drafts", () => {
  it("survive a scene switch and a reload, and say which scenes they are in", () => {
    const typed = run(start(1), { type: "typed", voice_file: "a.wav", text: "New words" }, { type: "select", index: 1 });
    expect(s.selectedScene(typed)?.voice_file).toBe("b.wav");
    expect(s.textOf(typed, typed.view.scenes[1])).toBe("Second scene.");
    const back = run(typed, { type: "loaded", view: view(1) }, { type: "select", index: 0 });
    expect(s.textOf(back, back.view.scenes[0])).toBe("New words");
    expect(s.unapplied(back)).toEqual([1]);
    expect(s.sessionLine(back)).toBe("Text not applied in scene 1 · 1 unsaved change");
  });

  it("go once applied, unless more was typed meanwhile", () => {
    const typed = run(start(), { type: "typed", voice_file: "a.wav", text: "One" });
    expect(s.unapplied(run(typed, { type: "textApplied", voice_file: "a.wav", sent: "One" }))).toEqual([]);
    const more = run(typed, { type: "typed", voice_file: "a.wav", text: "One two" }, { type: "textApplied", voice_file: "a.wav", sent: "One" });
    expect(more.drafts["a.wav"]).toBe("One two");
  });

  it("text typed back to what the scene says is not unapplied", () => {
    const same = run(start(), { type: "typed", voice_file: "b.wav", text: " Second scene. " });
    expect([s.unapplied(same), s.sessionLine(same)]).toEqual([[], "All changes saved"]);
  });
});

describe("the selection follows the playhead", () => {
  // Scenes of 2, 3 and 4 s: a from 0, b from 2, c from 5.
  const playing = run(start(), { type: "play", playing: { kind: "whole", url: "/whole.mp4", from: 0 } });

  it("across scene boundaries while the whole video plays", () => {
    const inA = run(playing, { type: "tick", t: 1.9 });
    expect([inA.selected, inA.time]).toEqual(["a.wav", 1.9]);
    const inB = run(inA, { type: "tick", t: 2.25 });
    expect([inB.selected, inB.time, inB.playhead]).toEqual(["b.wav", 0.25, 2.25]);
    const inC = run(inB, { type: "tick", t: 5.5 });
    expect([inC.selected, inC.time]).toEqual(["c.wav", 0.5]);
    expect(s.sceneStart(inC)).toBe(5);
  });

  it("pausing shows the still of that moment in its scene", () => {
    const paused = run(playing, { type: "tick", t: 6 }, { type: "paused", at: 6.5 });
    expect([paused.playing, paused.selected, paused.time]).toEqual([null, "c.wav", 1.5]);
  });

  it("a scene's own clip moves the playhead within its scene only", () => {
    const own = run(start(), { type: "select", index: 1 }, { type: "play", playing: { kind: "scene", url: "/b.mp4" } }, { type: "tick", t: 2.5 });
    expect([own.selected, own.time, own.playhead]).toEqual(["b.wav", 2.5, 4.5]);
  });

  it("stopped, a click on the timeline selects the scene there", () => {
    const clicked = run(start(), { type: "seekVideo", t: 6 });
    expect([clicked.selected, clicked.time, clicked.playhead]).toEqual(["c.wav", 1, 6]);
    expect(s.sceneAt(s.spans(clicked), 5)).toBe(2);
    expect(s.sceneAt(s.spans(clicked), 4.99)).toBe(1);
  });

  it("a seek stays within the scene", () => {
    const sought = run(start(), { type: "seek", t: 9 });
    expect([sought.selected, sought.time]).toEqual(["a.wav", 2]);
  });
});

describe("reorder, delete and add number the scenes again", () => {
  it("a reorder keeps the selected scene selected where it went", () => {
    const moved = run(start(), { type: "arranged", arranged: arranged("reorder", [["b.wav", 3], ["a.wav", 2], ["c.wav", 4]]) });
    expect(ids(moved)).toEqual([["b.wav", "1", 1, 0], ["a.wav", "2", 2, 1], ["c.wav", "3", 3, 2]]);
    expect([moved.selected, s.selectedIndex(moved)]).toEqual(["a.wav", 1]);
    expect(s.spans(moved).map((p) => p.start)).toEqual([0, 3, 5]);
  });

  it("a delete selects the scene that took its place and drops its draft", () => {
    const chosen = run(start(), { type: "select", index: 1 }, { type: "typed", voice_file: "b.wav", text: "Gone" });
    const deleted = run(chosen, { type: "arranged", arranged: arranged("delete", [["a.wav", 2], ["c.wav", 4]]) });
    expect(ids(deleted)).toEqual([["a.wav", "1", 1, 0], ["c.wav", "2", 2, 1]]);
    expect(deleted.selected).toBe("c.wav");
    expect(deleted.drafts).toEqual({});
  });

  it("deleting the last scene selects the one before it", () => {
    const last = run(start(), { type: "select", index: 2 }, { type: "arranged", arranged: arranged("delete", [["a.wav", 2], ["b.wav", 3]]) });
    expect(last.selected).toBe("b.wav");
  });

  it("an added scene arrives with the reload and can be selected then", () => {
    const answer = arranged("add", [["a.wav", 2], ["new.wav", 1.5], ["b.wav", 3], ["c.wav", 4]]);
    const before = run(start(), { type: "arranged", arranged: answer });
    expect(ids(before).map(([vf, id]) => [vf, id])).toEqual([["a.wav", "1"], ["b.wav", "3"], ["c.wav", "4"]]);
    const reloaded = view();
    reloaded.scenes.splice(1, 0, scene("new.wav", 1.5, "A new scene.", 1));
    const selected = run(before, { type: "loaded", view: reloaded }, { type: "selectScene", voice_file: "new.wav" });
    expect([s.selectedIndex(selected), s.selectedScene(selected)?.text]).toEqual([1, "A new scene."]);
  });

  it("a re-voice changes the scene's length and where the next ones start", () => {
    const longer = run(start(), { type: "arranged", arranged: arranged("revoice", [["a.wav", 6], ["b.wav", 3], ["c.wav", 4]]) });
    expect(s.spans(longer).map((p) => p.start)).toEqual([0, 6, 9]);
  });

  it("a scenes_changed message is an Arranged", () => {
    const answer = arranged("delete", [["a.wav", 2]]);
    const m = parseMessage("scenes_changed", JSON.stringify({ type: "scenes_changed", topic_id: "wcTest", voice_file: "", at: "", ...answer }));
    expect(m).toEqual({ kind: "arranged", arranged: { type: "scenes_changed", topic_id: "wcTest", voice_file: "", at: "", ...answer } });
  });
});

describe("a voice upload that changes a scene's length says so", () => {
  it("from the message's old and new lengths", () => {
    const payload = { type: "scene_voice_upload_applied", voice_file: "b.wav", applied: { duration: 4, previous_duration: 7 } };
    expect(parseMessage("scene_voice_upload_applied", JSON.stringify(payload))).toEqual({ kind: "voice", voice_file: "b.wav", duration: 4, previous: 7 });
    expect(lengthSentence(2, 4, 7)).toBe("Scene 2 is now 4.0 s long (was 7.0 s): the uploaded voice is shorter.");
    expect(lengthSentence(1, 3.5, 2)).toBe("Scene 1 is now 3.5 s long (was 2.0 s): the uploaded voice is longer.");
    expect(lengthSentence(1, 2.01, 2)).toBe("");
  });

  it("without the old length in the message", () => {
    const payload = { type: "scene_voice_upload_applied", voice_file: "b.wav", applied: { duration: 4 } };
    expect(parseMessage("scene_voice_upload_applied", JSON.stringify(payload))).toMatchObject({ kind: "voice", duration: 4, previous: null });
  });
});

describe("the store", () => {
  it("holds one state, changed by dispatch, and tells its listeners", () => {
    const store = s.createStore(start());
    const heard = vi.fn();
    const stop = store.subscribe(heard);
    store.dispatch({ type: "select", index: 2 });
    expect(store.get().selected).toBe("c.wav");
    expect(heard).toHaveBeenCalledTimes(1);
    store.dispatch({ type: "select", index: 7 });
    expect(heard).toHaveBeenCalledTimes(1);
    stop();
    store.dispatch({ type: "note", note: "Saved" });
    expect(heard).toHaveBeenCalledTimes(1);
    expect(store.get().note).toBe("Saved");
  });
});
