//! svg2spec throughput: SVGs/second converted on one thread vs. rayon over all cores (across
//! files, and within each file across its objects), for a batch of representative overlay SVGs
//! (a gradient background, six objects: text, bars, a callout with a blur shadow, marks).
//!
//! Run: `cargo bench -p compositor --bench svg2spec` (add `-- 96` for a bigger batch).

use compositor::svg2spec::{Limits, Options, convert, font_db};
use rayon::prelude::*;
use std::path::Path;
use std::time::Instant;

fn overlay(i: usize) -> String {
    let mut s = String::from(
        r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 720 1280" width="720" height="1280">
<defs><linearGradient id="bg" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#0b1d33"/><stop offset="1" stop-color="#1f4e79" stop-opacity="0.4"/></linearGradient>
<filter id="sh"><feGaussianBlur stdDeviation="6"/></filter></defs>
<rect width="720" height="1280" fill="url(#bg)" opacity="0.5"/>
"##,
    );
    s.push_str(&format!(
        r##"<g data-wc-object="title" data-wc-kind="text" data-wc-anim="slide-up"><text x="60" y="220" font-family="Inter" font-weight="800" font-size="72" fill="#fff">Revenue {i}</text><text x="60" y="300" font-family="Inter" font-size="44" fill="#ffd23f">tăng trưởng 42%</text></g>
"##
    ));
    for b in 0..3 {
        let h = 120 + 60 * ((i + b) % 4);
        s.push_str(&format!(
            r##"<g data-wc-object="bar-{b}" data-wc-kind="bar" data-wc-anim="grow-y"><rect x="{}" y="{}" width="120" height="{h}" rx="12" fill="#3ec1d3"/></g>
"##,
            100 + b * 180,
            900 - h
        ));
    }
    s.push_str(
        r##"<g data-wc-object="callout" data-wc-kind="callout" data-wc-anim="pop"><rect x="84" y="404" width="560" height="160" rx="24" fill="#000" opacity="0.4" filter="url(#sh)"/><rect x="80" y="400" width="560" height="160" rx="24" fill="#fff"/><text x="120" y="500" font-family="Inter" font-weight="700" font-size="48" fill="#111">Best quarter yet</text></g>
<g data-wc-object="mark" data-wc-kind="mark" data-wc-anim="fade"><path d="M100 940 L620 940" stroke="#ffd23f" stroke-width="10" stroke-linecap="round"/><circle cx="620" cy="940" r="16" fill="#ffd23f"/></g>
</svg>"##,
    );
    s
}

fn main() {
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(48);
    let opt = Options {
        fontdb: font_db(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/fonts")),
        limits: Limits::default(),
        file_prefix: String::new(),
    };
    let batch: Vec<String> = (0..n).map(overlay).collect();
    // Warm-up (font loading, allocator).
    convert(batch[0].as_bytes(), &opt).expect("bench SVG converts");

    let single = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    let t = Instant::now();
    let objects_single: usize = single.install(|| {
        batch
            .iter()
            .map(|s| {
                convert(s.as_bytes(), &opt)
                    .expect("converts")
                    .spec
                    .object_count()
            })
            .sum()
    });
    let single_s = t.elapsed().as_secs_f64();

    let t = Instant::now();
    let objects_par: usize = batch
        .par_iter()
        .map(|s| {
            convert(s.as_bytes(), &opt)
                .expect("converts")
                .spec
                .object_count()
        })
        .sum();
    let par_s = t.elapsed().as_secs_f64();
    assert_eq!(objects_single, objects_par);

    let threads = rayon::current_num_threads();
    println!("svg2spec: {n} SVGs, {} objects each", objects_par / n);
    println!(
        "  single thread : {:8.1} SVGs/s ({:.1} ms/SVG)",
        n as f64 / single_s,
        single_s * 1000.0 / n as f64
    );
    println!(
        "  rayon ({threads:>2} thr): {:8.1} SVGs/s ({:.1} ms/SVG)",
        n as f64 / par_s,
        par_s * 1000.0 / n as f64
    );
    println!("  speed-up      : {:.2}×", single_s / par_s);
}
