//! The overlay spec loader: a spec file's bytes through `render::render::parse_spec`, the
//! spec's own checks, and (when they pass) the render plan's reading of its objects.

use std::path::Path;

use video::render;

fn main() {
    afl::fuzz!(|data: &[u8]| {
        let Ok(spec) = render::parse_spec(data) else {
            return;
        };
        if spec.validate().is_err() {
            return;
        }
        for duration in [0.0, 2.5, 1e9] {
            for o in spec.to_overlay_objects(Path::new("/nonexistent"), duration) {
                assert!(
                    o.start <= o.end && o.end <= duration,
                    "an object outside its scene"
                );
            }
        }
        // What the overlay edits write back is read again the same way.
        let bytes = serde_json::to_vec(&spec).expect("a parsed spec serialises");
        let again = render::parse_spec(&bytes).expect("a written spec parses again");
        again.validate().expect("a written spec validates again");
    });
}
