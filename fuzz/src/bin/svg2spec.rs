//! svg2spec: any bytes (plain or gzip SVG) through the conversion the upload and typography
//! paths use, under the default limits. A spec it produces must pass the spec's own checks.

use std::sync::LazyLock;

use compositor::svg2spec::{self, Limits, Options};

static OPTIONS: LazyLock<Options> = LazyLock::new(|| Options {
    fontdb: svg2spec::font_db(&reelsmith_fuzz::fonts_dir()),
    limits: Limits::default(),
    file_prefix: "s1_".into(),
});

fn main() {
    LazyLock::force(&OPTIONS);
    afl::fuzz!(|data: &[u8]| {
        if let Ok(converted) = svg2spec::convert(data, &OPTIONS) {
            converted
                .spec
                .validate()
                .expect("svg2spec produced a spec its own checks refuse");
        }
    });
}
