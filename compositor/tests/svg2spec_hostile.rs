//! Hostile SVGs: every file in `tests/hostile_svg/` (plus a few generated here because they are
//! large: a gzip bomb, deep nesting, a node flood) must give a clean svg2spec error that names
//! the problem, within a generous time bound that only catches hangs.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use compositor::svg2spec::{Limits, Options, Svg2specError, convert, font_db};

/// Hang guard only; conversions here finish in milliseconds.
const BOUND: Duration = Duration::from_secs(10);

fn opt() -> Options {
    Options {
        fontdb: font_db(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/fonts")),
        limits: Limits::default(),
        file_prefix: String::new(),
    }
}

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile_svg")
}

fn refuse(name: &str, input: &[u8], expect: &str) {
    let started = Instant::now();
    let result = convert(input, &opt());
    let took = started.elapsed();
    assert!(took < BOUND, "{name}: took {took:?}");
    match result {
        Ok(c) => panic!("{name}: accepted with {} objects", c.spec.object_count()),
        Err(e) => {
            let msg = e.to_string();
            assert!(
                msg.contains(expect),
                "{name}: error `{msg}` does not mention `{expect}`"
            );
        }
    }
}

#[test]
fn corpus_files_are_refused_cleanly() {
    let cases: &[(&str, &str)] = &[
        ("billion_laughs.svg", "DOCTYPE"),
        ("external_entity.svg", "DOCTYPE"),
        ("image_file_href.svg", "file:///etc/passwd"),
        ("image_http_href.svg", "http://169.254.169.254"),
        ("image_relative_href.svg", "../../secret.png"),
        ("use_external_file.svg", "other.svg#shape"),
        ("css_import.svg", "@import"),
        ("fill_external_url.svg", "url(https://evil.example"),
        ("style_attr_external_url.svg", "url(file:"),
        ("huge_dimensions.svg", "width"),
        ("use_cycle.svg", "cycle"),
        ("use_self.svg", "cycle through `#self`"),
        ("use_bomb.svg", "expand to more than"),
        ("script.svg", "<script>"),
        ("nested_svg_data_image.svg", "image/svg+xml"),
        ("huge_embedded_png.svg", "100000 px"),
        ("wrong_viewbox.svg", "viewBox=\"0 0 720 1280\""),
        ("no_objects.svg", "no data-wc-object"),
        ("filter_flood.svg", "filter primitives"),
    ];
    let mut seen: Vec<String> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    seen.sort();
    let mut listed: Vec<String> = cases.iter().map(|(n, _)| n.to_string()).collect();
    listed.sort();
    assert_eq!(seen, listed, "every corpus file has an expectation");
    for (name, expect) in cases {
        let bytes = std::fs::read(corpus().join(name)).unwrap();
        refuse(name, &bytes, expect);
    }
}

#[test]
fn gzip_bomb_stops_at_the_cap() {
    use std::io::Write;
    // 256 MiB of spaces inside an otherwise valid SVG: about 250 KB compressed.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(b"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 720 1280'>")
        .unwrap();
    let chunk = vec![b' '; 1 << 20];
    for _ in 0..256 {
        gz.write_all(&chunk).unwrap();
    }
    gz.write_all(b"<g data-wc-object='a'><rect width='5' height='5'/></g></svg>")
        .unwrap();
    let bomb = gz.finish().unwrap();
    assert!(bomb.len() < Limits::default().max_bytes);
    refuse("gzip bomb", &bomb, "inflates past");
    refuse("truncated gzip", &bomb[..bomb.len() / 2], "");
}

#[test]
fn deep_nesting_and_node_floods() {
    let deep = format!(
        "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 720 1280'>{}<g data-wc-object='a'><rect width='5' height='5'/></g>{}</svg>",
        "<g>".repeat(5000),
        "</g>".repeat(5000)
    );
    refuse("deep nesting", deep.as_bytes(), "deeper than");
    let flood = format!(
        "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 720 1280'><g data-wc-object='a'>{}</g></svg>",
        "<rect width='1' height='1'/>".repeat(100_000)
    );
    refuse("node flood", flood.as_bytes(), "XML nodes");
    let big = vec![b' '; Limits::default().max_bytes + 1];
    refuse("oversized", &big, "larger than");
    refuse("binary", &[0xff, 0xfe, 0x00, 0x01], "UTF-8");
}

#[test]
fn a_valid_file_still_converts_under_the_same_limits() {
    let ok = "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 720 1280'><defs><rect id='r' width='40' height='40'/></defs><g data-wc-object='a'><use href='#r' x='10' y='10'/></g></svg>";
    let c = convert(ok.as_bytes(), &opt()).unwrap();
    assert_eq!(c.spec.object_count(), 1);
    let o = c.spec.objects().next().unwrap();
    assert_eq!(
        (o.rect.x, o.rect.y, o.rect.w, o.rect.h),
        (10.0, 10.0, 40.0, 40.0)
    );
    let _ = Svg2specError::NoObjects;
}
