//! `reelsmith svg2spec DIR… -o OUT`: every SVG of some folders converted to an overlay spec in
//! parallel (rayon over files), each written to `{out}/{file stem}/` (`spec.json` plus its
//! payload PNGs), one line per file and a summary. Command-line plumbing around
//! `compositor::svg2spec::convert`, which does the work.

use std::path::{Path, PathBuf};

use compositor::svg2spec::{self, Options, Svg2specError, convert};
use rayon::prelude::*;

/// `reelsmith svg2spec`: one line per file, a summary, failure when any file failed.
pub fn run(
    inputs: &[PathBuf],
    out: &std::path::Path,
    assets: &std::path::Path,
) -> Result<(), String> {
    let started = std::time::Instant::now();
    let files = collect_inputs(inputs).map_err(|e| format!("cannot read the inputs: {e}"))?;
    let opt = Options {
        fontdb: svg2spec::font_db(&assets.join("fonts")),
        limits: svg2spec::Limits::default(),
        file_prefix: String::new(),
    };
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let items = convert_files(&files, out, &opt);
    let mut failed = 0;
    for item in &items {
        match &item.result {
            Ok(dir) => println!("ok     {} -> {}", item.input.display(), dir.display()),
            Err(e) => {
                failed += 1;
                println!("failed {}: {e}", item.input.display());
            }
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{} converted, {failed} failed in {secs:.2} s ({:.1} SVGs/s)",
        items.len() - failed,
        items.len() as f64 / secs.max(1e-9)
    );
    if failed > 0 {
        return Err(format!("{failed} of {} SVGs failed", items.len()));
    }
    Ok(())
}

/// Every `.svg`/`.svgz` file directly inside each folder (or the file itself), sorted.
pub fn collect_inputs(paths: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            for e in std::fs::read_dir(p)? {
                let path = e?.path();
                let ext = path
                    .extension()
                    .and_then(|e| e.to_str())
                    .map(str::to_ascii_lowercase);
                if path.is_file() && matches!(ext.as_deref(), Some("svg" | "svgz")) {
                    out.push(path);
                }
            }
        } else {
            out.push(p.clone());
        }
    }
    out.sort();
    Ok(out)
}

/// The outcome of converting one file of a batch.
#[derive(Debug)]
pub struct BatchItem {
    pub input: PathBuf,
    /// The folder written (`{out}/{stem}/spec.json` and payloads), or why it failed.
    pub result: Result<PathBuf, String>,
}

/// Converts `inputs` in parallel (rayon), writing each into `{out}/{file stem}/` as
/// `spec.json` plus its payload PNGs. Files larger than the input limit are refused unread.
pub fn convert_files(inputs: &[PathBuf], out: &Path, opt: &Options) -> Vec<BatchItem> {
    inputs
        .par_iter()
        .map(|input| {
            let result = (|| {
                let len = std::fs::metadata(input).map_err(|e| e.to_string())?.len();
                if len > opt.limits.max_bytes as u64 {
                    return Err(Svg2specError::TooLarge(opt.limits.max_bytes).to_string());
                }
                let bytes = std::fs::read(input).map_err(|e| e.to_string())?;
                let converted = convert(&bytes, opt).map_err(|e| e.to_string())?;
                let stem = input
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .unwrap_or("svg")
                    .to_string();
                let dir = out.join(stem);
                std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
                for (name, bytes) in &converted.files {
                    std::fs::write(dir.join(name), bytes).map_err(|e| e.to_string())?;
                }
                let json = serde_json::to_vec_pretty(&converted.spec).map_err(|e| e.to_string())?;
                std::fs::write(dir.join("spec.json"), json).map_err(|e| e.to_string())?;
                Ok(dir)
            })();
            BatchItem {
                input: input.clone(),
                result,
            }
        })
        .collect()
}
